#!/bin/bash
# alternates base (A) and new (B) SlowBodyAttackIT.java in the worktree; ends with the new one in place
T=/work/wt/suitetime3/loomgate-cli/src/test/java/io/loomgate/it/SlowBodyAttackIT.java
for i in "$@"; do
  cp /tmp/st3/SlowBodyAttackIT.new.java $T; /tmp/st3/it.sh B$i SlowBodyAttackIT
  cp /tmp/st3/SlowBodyAttackIT.base.java $T; /tmp/st3/it.sh A$i SlowBodyAttackIT
done
cp /tmp/st3/SlowBodyAttackIT.new.java $T
