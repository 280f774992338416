package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The start-up line on the AOT cache, from what the JVM reports (ContainerImageIT runs it for real in the image). */
class AotCacheStatusTest {
    @Test
    void noCacheNamedNoLine() {
        assertThat(AotCacheStatus.describe(null, "mixed mode, sharing")).isNull();
        assertThat(AotCacheStatus.describe(" ", "mixed mode")).isNull();
    }

    @Test
    void sharingMeansTheCacheIsInUse() {
        assertThat(AotCacheStatus.describe("/opt/loomgate/loomgate.aot", "mixed mode, sharing"))
                .isEqualTo("AOT cache /opt/loomgate/loomgate.aot: in use");
    }

    @Test
    void noSharingSaysWhyAndHowToSeeTheJvmsReason() {
        assertThat(AotCacheStatus.describe("/opt/loomgate/loomgate.aot", "mixed mode"))
                .startsWith("AOT cache /opt/loomgate/loomgate.aot: not used (made by another JVM or with other JVM")
                .contains("-Xlog:aot");
    }
}
