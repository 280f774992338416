package io.loomgate.http2;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;

/**
 * Turns one decoded response header block from an origin into a {@link ResponseHead} (or its trailers), refusing
 * what RFC 9113 §8.3.2 calls malformed: no or a repeated {@code :status}, any other pseudo-field, a pseudo-field after
 * a regular one or in trailers, invalid names or values, connection-specific fields. A sink for the decoder, like
 * {@link RequestFields}: it collects to the end of the block (HPACK state must stay in step) and judges afterwards.
 */
final class ResponseFields implements HpackDecoder.FieldSink {
    private final boolean trailers;
    private final Headers headers;
    private int status = -1;
    private boolean regularSeen;
    private String problem;

    /**
     * @param blockFields the block's field count, :status included: the list gets the block's regular fields and
     *                    room for the two the proxy may set on the way to the client (Via; Connection or Upgrade)
     */
    ResponseFields(boolean trailers, int blockFields) {
        this.trailers = trailers;
        this.headers = new Headers(trailers ? blockFields : blockFields + 1);
    }

    @Override
    public void field(String name, String value) {
        if (problem != null) {
            return;
        }
        if (!RequestFields.validValue(value)) {
            problem = "invalid characters in the value of '" + name + "'";
        } else if (!name.isEmpty() && name.charAt(0) == ':') {
            pseudo(name, value);
        } else if (!RequestFields.validName(name)) {
            problem = "invalid field name '" + name + "' (names are lower-case tokens in HTTP/2)";
        } else {
            regularSeen = true;
            switch (name) {
                case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade" ->
                        problem = "connection-specific field '" + name + "' (RFC 9113 §8.2.2)";
                default -> headers.add(name, value);
            }
        }
    }

    private void pseudo(String name, String value) {
        if (trailers || regularSeen || !name.equals(":status") || status >= 0) {
            problem = "pseudo-field '" + name + "' misplaced, repeated or unknown in a response (RFC 9113 §8.3.2)";
            return;
        }
        if (value.length() != 3 || !Character.isDigit(value.charAt(0)) || !Character.isDigit(value.charAt(1))
                || !Character.isDigit(value.charAt(2)) || value.charAt(0) == '0' || value.charAt(0) > '5') {
            // RFC 9110 §15: 100-599, as the HTTP/1.1 client side's parser allows (an h2 origin's 600 was relayed)
            problem = "invalid :status '" + value + "'";
            return;
        }
        status = Integer.parseInt(value);
    }

    /** The response head, or a stream error naming what was malformed. */
    ResponseHead toResponse(int streamId) throws Http2Exception {
        if (problem == null && status < 0) {
            problem = "no :status (RFC 9113 §8.3.2)";
        }
        if (problem != null) {
            throw Http2Exception.stream(streamId, Frames.PROTOCOL_ERROR, problem);
        }
        // Spelled as HTTP/1.1 heads are: the proxy's rewriting and the HTTP/1.1 client side read heads that way.
        return new ResponseHead(HttpVersion.HTTP_1_1, status, Status.reason(status), headers);
    }

    /** The trailer fields, or a stream error. */
    Headers toTrailers(int streamId) throws Http2Exception {
        if (problem != null) {
            throw Http2Exception.stream(streamId, Frames.PROTOCOL_ERROR, problem);
        }
        return headers;
    }
}
