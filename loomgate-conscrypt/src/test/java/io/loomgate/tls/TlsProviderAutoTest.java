package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code provider: auto}: Conscrypt on glibc Linux x86-64/aarch64 with JDK 24+ when its native library loads, the
 * JDK's elsewhere, always with a reason for the start-up log.
 */
class TlsProviderAutoTest {
    @Test
    void conscryptOnLinuxX86AndArmWithAModernJdkWhenTheLibraryLoads() {
        for (String arch : List.of("amd64", "aarch64")) {
            TlsProvider.Choice c = TlsProvider.choose("Linux", arch, 25, () -> null);
            assertThat(c.provider()).isEqualTo(TlsProvider.CONSCRYPT);
            assertThat(c.reason()).contains("JDK 25", "Linux " + arch, "native library loaded");
        }
    }

    @Test
    void theJdksElsewhereSayingWhyAndWithoutLoadingTheLibraryWhereItIsNotTried() {
        AtomicInteger loads = new AtomicInteger();
        TlsProvider.Choice mac = TlsProvider.choose("Mac OS X", "aarch64", 25, () -> {
            loads.incrementAndGet();
            return null;
        });
        assertThat(mac.provider()).isEqualTo(TlsProvider.JDK);
        assertThat(mac.reason()).contains("Mac OS X aarch64");
        TlsProvider.Choice riscv = TlsProvider.choose("Linux", "riscv64", 25, () -> null);
        assertThat(riscv.provider()).isEqualTo(TlsProvider.JDK);
        TlsProvider.Choice jdk21 = TlsProvider.choose("Linux", "amd64", 21, () -> {
            loads.incrementAndGet();
            return null;
        });
        assertThat(jdk21.provider()).isEqualTo(TlsProvider.JDK);
        assertThat(jdk21.reason()).contains("JDK 24", "JDK 21");
        assertThat(loads).as("the native library is only tried where Conscrypt would be used").hasValue(0);
    }

    @Test
    void aLibraryThatDoesNotLoadMeansTheJdks() { // musl (Alpine): the glibc-linked library fails to link
        TlsProvider.Choice c = TlsProvider.choose("Linux", "amd64", 25,
                () -> "provider conscrypt is not available on this platform (its native library did not load: x)");
        assertThat(c.provider()).isEqualTo(TlsProvider.JDK);
        assertThat(c.reason()).contains("did not load");
    }

    @Test
    void thisJvmsChoiceIsConsistentWithWhatConscryptSaysAboutItself() {
        TlsProvider.Choice c = TlsProvider.auto(List.of(), ServerTlsSettings.DEFAULT_PROTOCOLS);
        if (c.provider() == TlsProvider.CONSCRYPT) {
            assertThat(TlsProvider.CONSCRYPT.unavailableReason()).isNull();
        }
        boolean linux = System.getProperty("os.name").startsWith("Linux");
        if (linux && TlsProvider.CONSCRYPT_ARCHES.contains(System.getProperty("os.arch"))
                && TlsProvider.CONSCRYPT.unavailableReason() == null) {
            assertThat(c.provider()).isEqualTo(TlsProvider.CONSCRYPT);
        }
        assertThat(TlsProvider.auto(List.of("TLS_AES_128_GCM_SHA256"), List.of("TLSv1.3")).provider())
                .as("a TLS 1.3 suite list BoringSSL cannot narrow to").isEqualTo(TlsProvider.JDK);
    }
}
