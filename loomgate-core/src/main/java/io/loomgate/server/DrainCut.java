package io.loomgate.server;

import io.loomgate.http.ClientCancel;
import io.loomgate.threads.VarHandles;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A connection's side of the drain's deadline: whether the drain cut it (set before its socket closes, so an exchange
 * that fails on the closed socket reports the drain's cut, not a client that left), and what cancels the HTTP/1.1
 * exchange it is handling then. Closing the socket alone does not end a handler waiting for its origin; HTTP/2's
 * streams are cancelled by their connection's end instead, so they register nothing here.
 *
 * <p>Threading: {@link #register} and {@link #clear} run on the connection's thread, {@link #mark} and
 * {@link #cancelExchange} on the drain's. Each side writes its volatile, then reads the other's, so at least one of
 * them runs the cancel (it may run twice, which a {@link ClientCancel} allows).
 */
final class DrainCut {
    private static final VarHandle CANCEL = VarHandles.field(MethodHandles.lookup(), "cancel", ClientCancel.class);

    private volatile boolean cut;
    /** The exchange now handled's cancel; null between exchanges, so an idle connection holds no exchange. */
    private volatile ClientCancel cancel;

    boolean isCut() {
        return cut;
    }

    /** The drain's deadline passed with the connection open: marked before the socket closes. */
    void mark() {
        cut = true;
    }

    /** After the close: the exchange's wait for its origin ends within the cancel's bound, which the drain waits for. */
    void cancelExchange() {
        ClientCancel c = cancel;
        if (c != null) {
            c.clientCancelled();
        }
    }

    /** An HTTP/1.1 exchange starts to be handled; a cut that looked before this was set is run here. */
    void register(ClientCancel action) {
        cancel = action;
        if (cut) {
            action.clientCancelled();
        }
    }

    /** The exchange's handler returned: its cancel is forgotten (a release store: nothing reads after it). */
    void clear() {
        CANCEL.setRelease(this, (ClientCancel) null);
    }
}
