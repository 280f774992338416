# user-space self time only (kernel leaves dropped), by kind of leaf
{
  n = $NF; $NF = ""; m = split($0, f, ";"); leaf = f[m]; gsub(/ +$/, "", leaf)
  if (leaf ~ /_\[k\]$/) { k += n; next }
  t += n
  if ($0 !~ /ForkJoinWorkerThread|VirtualThread|Continuation/) c = "other threads (JIT, GC, watchdog, poller): " f[1]
  else if (leaf ~ /libconscrypt|conscrypt_openjdk/) c = "conscrypt/BoringSSL native"
  else if (leaf ~ /memmove|memcpy|__GI_|libc|^\[vdso/) c = "libc/vdso"
  else if (leaf ~ /freeze|thaw|Continuation::|StackChunk|stackChunk/) c = "jvm: continuation freeze/thaw"
  else if (leaf ~ /::|</ || leaf !~ /\//) c = "jvm: other native (" leaf ")"
  else if (leaf ~ /^org\/conscrypt/) c = "conscrypt java"
  else if (leaf ~ /^sun\/nio|^java\/net|^sun\/net|^java\/nio/) c = "jdk nio"
  else if (leaf ~ /^java\/lang\/VirtualThread|^jdk\/internal\/vm|ForkJoin|LockSupport|^java\/lang\/Thread/) c = "jdk vthread/scheduler"
  else if (leaf ~ /^io\/loomgate/) c = "loomgate own"
  else if (leaf ~ /^io\/micrometer|^ch\/qos|^org\/slf4j/) c = "micrometer/logback"
  else c = "jdk other (" (leaf ~ /^java\/util\/concurrent/ ? "j.u.c" : leaf ~ /^java\/util/ ? "java.util" : leaf ~ /^java\/lang/ ? "java.lang" : "rest") ")"
  s[c] += n
}
END { printf "kernel samples %d, user samples %d\n", k, t; for (x in s) printf "%6d %5.1f%% of user  %s\n", s[x], 100 * s[x] / t, x }
