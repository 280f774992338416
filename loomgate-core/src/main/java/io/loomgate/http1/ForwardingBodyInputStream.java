package io.loomgate.http1;

import io.loomgate.http.Headers;
import java.io.IOException;

/**
 * A body that adds a step to another body's reads (a size cap, a "100 Continue" on the first read) and otherwise is
 * that body: it forwards the array read, {@link #available()}, {@link #readyBytes()}, {@link #startReading()}, {@link #isComplete()} and
 * {@link #trailers()}. It does not forward direct reads or {@link #awaitData()}: a subclass that wants them forwards
 * them itself, so a step on the array read is never bypassed by accident.
 */
public abstract class ForwardingBodyInputStream extends BodyInputStream {
    protected final BodyInputStream body;

    protected ForwardingBodyInputStream(BodyInputStream body) {
        this.body = body;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return body.read(b, off, len);
    }

    @Override
    public int available() throws IOException {
        return body.available();
    }

    @Override
    public int readyBytes() throws IOException {
        return body.readyBytes();
    }

    @Override
    public void startReading() throws IOException {
        body.startReading();
    }

    @Override
    public boolean isComplete() {
        return body.isComplete();
    }

    @Override
    public Headers trailers() {
        return body.trailers();
    }
}
