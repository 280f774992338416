package io.loomgate.grpc;

/** gRPC's status codes (grpc/doc/statuscodes.md), with the text {@code grpc-status} carries. */
public enum GrpcStatus {
    OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED,
    RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS,
    UNAUTHENTICATED;

    private static final GrpcStatus[] BY_CODE = values();

    private final String text = Integer.toString(ordinal());

    /** The numeric code: the enum is declared in code order, 0 to 16. */
    public int code() {
        return ordinal();
    }

    /** The value of the {@code grpc-status} field. */
    public String text() {
        return text;
    }

    /** The status with this code, or null for a code gRPC does not define. */
    public static GrpcStatus ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /**
     * The code a {@code grpc-status} value carries: its decimal digits (at most three), or -1 when the value is
     * missing or not a number. Codes gRPC does not define are returned as they are (a client maps them to UNKNOWN).
     */
    public static int parseCode(String value) {
        if (value == null || value.isEmpty() || value.length() > 3) {
            return -1;
        }
        int code = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            code = code * 10 + (c - '0');
        }
        return code;
    }
}
