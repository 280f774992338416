# collapsed stacks -> self time by category: the leaf's kind and the nearest io/loomgate frame
{
  n = $NF; $NF = ""; m = split($0, f, ";"); leaf = f[m]; gsub(/ +$/, "", leaf); t += n
  root = f[1]
  if (root !~ /^java\/lang\/Thread|^\[|ForkJoin|^java\/util\/concurrent/ && $0 !~ /ForkJoinWorkerThread|VirtualThread|Continuation/) { c = "vm-thread:" root }
  else {
    own = "-"; for (i = m; i >= 1; i--) if (f[i] ~ /^io\/loomgate/) { own = f[i]; break }
    if (leaf ~ /_\[k\]$/) kind = "kernel"
    else if (leaf ~ /libconscrypt|\.so|memmove|__GI_|^\[/) kind = "native"
    else if (leaf ~ /::|<|^[A-Za-z_0-9]+$/ && leaf !~ /\//) kind = "jvm"
    else if (leaf ~ /^sun\/nio|^java\/net|^sun\/net/) kind = "jdk-nio"
    else if (leaf ~ /^org\/conscrypt/) kind = "conscrypt-java"
    else if (leaf ~ /^io\/loomgate/) kind = "own"
    else if (leaf ~ /Continuation|VirtualThread|ForkJoin|freeze|thaw|LockSupport|Unsafe.park|Unsafe.unpark/) kind = "vthread"
    else kind = "jdk-other"
    c = kind " <- " own
  }
  s[c] += n
}
END { for (k in s) printf "%6d %5.1f%% %s\n", s[k], 100 * s[k] / t, k }
