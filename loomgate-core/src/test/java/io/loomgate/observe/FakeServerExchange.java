package io.loomgate.observe;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.server.ServerExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** A request handed straight to a handler, no socket: records the response head and body it was given. */
final class FakeServerExchange implements ServerExchange {
    private final RequestHead request;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private ResponseHead response;
    private boolean finished;

    FakeServerExchange(String method, String target, String... headerPairs) {
        Headers headers = new Headers();
        for (int i = 0; i < headerPairs.length; i += 2) {
            headers.add(headerPairs[i], headerPairs[i + 1]);
        }
        if (headers.first("Host") == null) {
            headers.add("Host", "127.0.0.1"); // as every HTTP/1.1 client sends; the admin listener checks it
        }
        this.request = new RequestHead(method, target, "HTTP/1.1", headers);
    }

    static FakeServerExchange get(String target) {
        return new FakeServerExchange("GET", target);
    }

    int status() {
        return response.status();
    }

    String header(String name) {
        return response.headers().first(name);
    }

    String bodyText() {
        if (!finished) {
            throw new AssertionError("the response body was never finished");
        }
        return body.toString(StandardCharsets.UTF_8);
    }

    @Override
    public RequestHead request() {
        return request;
    }

    @Override
    public BodyFraming requestFraming() {
        return BodyFraming.NONE;
    }

    @Override
    public BodyInputStream requestBody() {
        throw new UnsupportedOperationException("the admin handler never reads request bodies");
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return new InetSocketAddress("127.0.0.1", 40000);
    }

    @Override
    public InetSocketAddress localAddress() {
        return new InetSocketAddress("127.0.0.1", 9901);
    }

    @Override
    public int requestIndex() {
        return 0;
    }

    @Override
    public long connectionId() {
        return 1;
    }

    @Override
    public void sendInterim(ResponseHead head) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ResponseBody sendHead(ResponseHead head, BodyFraming framing) {
        if (response != null) {
            throw new IllegalStateException("a second response head");
        }
        response = head;
        return new ResponseBody() {
            @Override
            public void write(int b) {
                body.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                body.write(b, off, len);
            }

            @Override
            public void finish(Headers trailers) throws IOException {
                if (framing instanceof BodyFraming.Fixed f && f.length() != body.size()) {
                    throw new IOException("declared " + f.length() + " bytes, wrote " + body.size());
                }
                finished = true;
            }
        };
    }

    @Override
    public Tunnel upgrade(ResponseHead switchingProtocols) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void closeAfterResponse() {
    }

    @Override
    public boolean isResponseStarted() {
        return response != null;
    }
}
