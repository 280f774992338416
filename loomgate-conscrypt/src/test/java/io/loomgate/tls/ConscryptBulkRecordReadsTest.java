package io.loomgate.tls;

import org.junit.jupiter.api.Test;

/** {@link BulkRecordReadsTest} with Conscrypt's engine: its own way of holding a record's plaintext back included. */
class ConscryptBulkRecordReadsTest {
    @Test
    void aReadTakesEveryWholeRecordBufferedAndEveryByteArrives() throws Exception {
        BulkRecordReadsTest.check(TlsProvider.CONSCRYPT);
    }
}
