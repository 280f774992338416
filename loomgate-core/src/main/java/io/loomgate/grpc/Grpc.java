package io.loomgate.grpc;

/** What makes a request gRPC: its content type (PROTOCOL-HTTP2.md, "Content-Type"). */
public final class Grpc {
    /** The content type of gRPC messages and of the gateway's own gRPC answers. */
    public static final String CONTENT_TYPE = "application/grpc";

    private Grpc() {
    }

    /**
     * Whether {@code contentType} names gRPC: {@code application/grpc} alone or followed by a subtype suffix
     * ({@code +proto}, {@code +json}, any other) or parameters ({@code ;charset=...}), in any letter case (media
     * types are case-insensitive). {@code application/grpc-web} is a different protocol (gRPC-Web) and is not gRPC.
     * One region compare: this runs once per POST request.
     */
    public static boolean isGrpc(String contentType) {
        if (contentType == null || !contentType.regionMatches(true, 0, CONTENT_TYPE, 0, CONTENT_TYPE.length())) {
            return false;
        }
        if (contentType.length() == CONTENT_TYPE.length()) {
            return true;
        }
        char next = contentType.charAt(CONTENT_TYPE.length());
        return next == '+' || next == ';' || next == ' ' || next == '\t';
    }
}
