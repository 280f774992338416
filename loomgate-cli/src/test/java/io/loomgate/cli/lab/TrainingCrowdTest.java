package io.loomgate.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The training's crowd of idle connections fits the descriptor limit it runs under: four descriptors per connection
 * across the trainer and the gateway, 256 kept. A container build step's 1,024 (podman's) failed with the full 3,000;
 * {@code ContainerImageIT} builds the image under that limit.
 */
class TrainingCrowdTest {
    @Test
    void theCrowdFitsTheDescriptorLimit() {
        assertThat(TrainingTraffic.crowdThatFits(1024)).isEqualTo(384);
        assertThat(TrainingTraffic.crowdThatFits(20_000)).isEqualTo(3000);
        assertThat(TrainingTraffic.crowdThatFits(Long.MAX_VALUE)).isEqualTo(3000);
        assertThat(TrainingTraffic.crowdThatFits(200)).isZero();
    }
}
