package io.loomgate.tls;

import java.util.Locale;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLProtocolException;

/**
 * What one TLS connection refused of its peer after the handshake, and the count that decides one of those refusals:
 * records in a row that carry no application data. The reason is kept for whoever ends the connection (the listener
 * counts it with the failed handshakes and logs it), since the refusal itself surfaces as an I/O failure of a read
 * somewhere in a codec, which only ends the connection.
 *
 * <p>Why a count: a TLS 1.3 KeyUpdate with {@code update_requested} costs the receiver a key schedule step for each
 * direction and a record of its own in answer, and JSSE answers every one (session 61: 1,000 in a row, then the
 * request served). BoringSSL, so Conscrypt, ends the connection at the 33rd KeyUpdate in a row without application
 * data ({@code kMaxKeyUpdates}), and at the 33rd empty record ({@code kMaxEmptyRecords}, any version): the same
 * bound here, on both providers, for any record that gives no application data (a key update, an empty record, a
 * warning alert). A peer that sends data between them is never near it: the count starts again at each record with
 * data. One reader at a time (the connection's thread), as for the rest of {@link EngineChannel}'s read state.
 */
final class PostHandshakeRefusals {
    /** Records without application data in a row that are taken; the next one ends the connection (BoringSSL's). */
    static final int MAX_RECORDS_WITHOUT_DATA = 32;

    private int recordsWithoutData;
    /** Why the connection was refused after its handshake; null while it was not. Read by whoever ends it. */
    private volatile String refusal;

    /**
     * One record unwrapped after the handshake, which gave {@code produced} bytes of application data: true when it
     * was the one too many without any, which the caller refuses ({@link #tooManyWithoutData}) without answering it.
     */
    boolean oneTooMany(int produced) {
        if (produced > 0) {
            recordsWithoutData = 0;
            return false;
        }
        return ++recordsWithoutData > MAX_RECORDS_WITHOUT_DATA;
    }

    /** The refusal of the one record too many without application data, recorded. */
    SSLProtocolException tooManyWithoutData() {
        return refused(new SSLProtocolException(recordsWithoutData
                + " TLS records in a row without application data (key updates or empty records)"));
    }

    /** Records {@code e} as the refusal (the first one stays) and returns it. */
    <E extends SSLException> E refused(E e) {
        if (refusal == null) {
            refusal = e.getMessage();
        }
        return e;
    }

    /**
     * BoringSSL's own refusal of the same floods (Conscrypt's engine counts before this class sees the record): its
     * reason codes in the exception's message. Recorded like this class's own; any other failure is not a refusal.
     */
    void engineFailed(SSLException e) {
        String m = String.valueOf(e.getMessage()).toUpperCase(Locale.ROOT);
        if (m.contains("TOO_MANY_KEY_UPDATES") || m.contains("TOO_MANY_EMPTY_FRAGMENTS")) {
            refused(e);
        }
    }

    /** Why the connection was refused after its handshake, or null. */
    String refusal() {
        return refusal;
    }
}
