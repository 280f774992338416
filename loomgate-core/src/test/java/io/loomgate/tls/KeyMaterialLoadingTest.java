package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every key form the issue names, written by openssl (not by us), read back and checked against its certificate:
 * PKCS#8 (EC and RSA), PKCS#1 RSA, SEC1 EC, PKCS#12; and the refusals, each naming the file.
 */
class KeyMaterialLoadingTest {
    private static TestPki pki;
    private static TestPki.Issued ec;
    private static TestPki.Issued rsa;

    @BeforeAll
    static void certificates() throws Exception {
        pki = TestPki.create("Key Loading CA");
        ec = pki.issue("ec", "ec.example", "ec.example");
        rsa = pki.issue("rsa", "rsa.example", "rsa", 30, "rsa.example");
    }

    @Test
    void readsPkcs8EcAndRsaKeysWithTheirChains() throws Exception {
        Identity e = KeySource.pem(ec.cert(), ec.key()).load();
        assertThat(e.keyType()).isEqualTo("EC");
        assertThat(e.chain()).hasSize(2);
        assertThat(e.leaf().getSubjectX500Principal().getName()).isEqualTo("CN=ec.example");
        assertThat(Files.readString(ec.key())).contains("BEGIN PRIVATE KEY");
        Identity r = KeySource.pem(rsa.cert(), rsa.key()).load();
        assertThat(r.keyType()).isEqualTo("RSA");
    }

    @Test
    void readsPkcs1RsaAndSec1EcKeysAsOpensslWritesThem() throws Exception {
        Path pkcs1 = pki.traditionalKey(rsa, "rsa");
        assertThat(Files.readString(pkcs1)).contains("BEGIN RSA PRIVATE KEY");
        assertThat(KeySource.pem(rsa.cert(), pkcs1).load().key().getEncoded())
                .isEqualTo(KeySource.pem(rsa.cert(), rsa.key()).load().key().getEncoded());
        Path sec1 = pki.traditionalKey(ec, "ec");
        assertThat(Files.readString(sec1)).contains("BEGIN EC PRIVATE KEY");
        Identity fromSec1 = KeySource.pem(ec.cert(), sec1).load();
        assertThat(fromSec1.keyType()).isEqualTo("EC");
    }

    @Test
    void readsAPkcs12KeyStore() throws Exception {
        Identity i = KeySource.keyStore(ec.p12(), TestPki.PASSWORD, "PKCS12").load();
        assertThat(i.leaf().getSubjectX500Principal().getName()).isEqualTo("CN=ec.example");
    }

    @Test
    void refusesAKeyThatBelongsToAnotherCertificate() {
        assertThatThrownBy(() -> KeySource.pem(ec.cert(), rsa.key()).load())
                .isInstanceOf(TlsMaterialException.class)
                .hasMessageContaining(rsa.key().toString())
                .hasMessageContaining("does not belong to the certificate 'CN=ec.example'");
    }

    @Test
    void refusesAWrongKeyStorePasswordNamingTheFile() {
        assertThatThrownBy(() -> KeySource.keyStore(ec.p12(), "wrong", "PKCS12").load())
                .isInstanceOf(TlsMaterialException.class)
                .hasMessageContaining(ec.p12().toString());
    }

    @Test
    void refusesAnEncryptedKeyWithWhatToDo() throws Exception {
        Path encrypted = pki.dir().resolve("encrypted.key");
        TestPki.run(java.util.List.of("openssl", "pkcs8", "-topk8", "-in", ec.key().toString(), "-out",
                encrypted.toString(), "-passout", "pass:secret"));
        assertThatThrownBy(() -> KeySource.pem(ec.cert(), encrypted).load())
                .isInstanceOf(TlsMaterialException.class)
                .hasMessageContaining("encrypted");
    }

    @Test
    void refusesMissingFilesAndFilesWithoutPem() throws Exception {
        Path missing = pki.dir().resolve("missing.crt");
        assertThatThrownBy(() -> KeySource.pem(missing, ec.key()).load())
                .hasMessage(missing + ": no such file");
        Path notPem = pki.dir().resolve("not.pem");
        Files.writeString(notPem, "hello\n");
        assertThatThrownBy(() -> KeySource.pem(notPem, ec.key()).load())
                .hasMessageContaining("no '-----BEGIN CERTIFICATE-----' block");
        assertThatThrownBy(() -> KeySource.pem(ec.cert(), notPem).load())
                .hasMessageContaining("no private key block");
    }
}
