# Ports and paths of this branch's runs (source it): harness-phases on 29880/29881/29891, beside the harness's 18080/18081
export SHARED=/work/shared/bench ORIGIN_PORT=29880 PORT=29881 ADMIN_PORT=29891 WORK=/tmp/warmjit-hp
# The flag variants of the plain warm-up (section 2 of the journal)
export OPTS_opt1="-XX:-UseOnStackReplacement"
export OPTS_opt2="-XX:Tier4BackEdgeThreshold=400000"
# The trained methods' OSR: at tier 2 a back-edge notification (every 2^Tier2BackedgeNotifyFreqLog back-edges) sends a
# method the training compiled at tier 4 straight to a C2 OSR compilation (CompilationPolicy::trained_transition, JDK 25),
# whatever Tier4BackEdgeThreshold says; an invocation notification (every 2^Tier2InvokeNotifyFreqLog = 2048 calls)
# sends it to a normal C2 compilation. Fewer back-edge notifications: the normal one first for short loops.
export OPTS_opt3="-XX:Tier2BackedgeNotifyFreqLog=18"
export OPTS_opt4="-XX:Tier2BackedgeNotifyFreqLog=18 -XX:Tier3BackedgeNotifyFreqLog=16"
export OPTS_opt5="-XX:Tier2BackedgeNotifyFreqLog=14"   # the JDK default: the old behaviour while the branch launcher had =18 (branch-launcher.txt)
