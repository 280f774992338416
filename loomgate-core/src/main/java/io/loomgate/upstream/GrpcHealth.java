package io.loomgate.upstream;

import io.loomgate.http.ResponseHead;
import io.loomgate.http2.Http2ClientStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The standard gRPC health-checking protocol ({@code grpc.health.v1.Health/Check}), as much of it as a check needs:
 * the request {@code HealthCheckRequest{service}} and the answer's {@code HealthCheckResponse.status}, encoded by
 * hand (two protobuf fields do not justify a protobuf runtime in the gateway).
 */
final class GrpcHealth {
    static final String PATH = "/grpc.health.v1.Health/Check";
    /** HealthCheckResponse.ServingStatus.SERVING. */
    private static final int SERVING = 1;
    private static final String[] STATUS_NAMES = {"UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"};
    /** A health answer is a few bytes; more is not a health answer. */
    private static final int MAX_ANSWER = 1024;

    private GrpcHealth() {
    }

    /** One gRPC message (uncompressed, length-prefixed) holding {@code HealthCheckRequest{service = 1}}. */
    static byte[] request(String service) {
        byte[] name = service.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        if (name.length > 0) {
            message.write(0x0a); // field 1, length-delimited
            writeVarint(message, name.length);
            message.writeBytes(name);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0); // not compressed
        int n = message.size();
        out.write(n >>> 24);
        out.write(n >>> 16);
        out.write(n >>> 8);
        out.write(n);
        out.writeBytes(message.toByteArray());
        return out.toByteArray();
    }

    /** Null when the answer says SERVING, else what it said instead. */
    static String verdict(ResponseHead head, Http2ClientStream stream, String what) throws IOException {
        if (head.status() != 200) {
            return what + " answered HTTP " + head.status();
        }
        String grpcStatus = head.headers().first("grpc-status"); // a trailers-only answer
        byte[] body = new byte[0];
        if (!stream.endedWithHead()) {
            body = readBounded(stream.body());
            grpcStatus = stream.body().trailers().first("grpc-status");
        }
        if (grpcStatus == null) {
            return what + " answered without a grpc-status";
        }
        if (!"0".equals(grpcStatus.trim())) {
            String message = stream.endedWithHead() ? head.headers().first("grpc-message")
                    : stream.body().trailers().first("grpc-message");
            return what + " answered grpc-status " + grpcStatus.trim() + (message == null ? "" : " (" + message + ")")
                    + ("12".equals(grpcStatus.trim()) ? ": the origin has no gRPC health service" : "");
        }
        int status = servingStatus(body);
        if (status == SERVING) {
            return null;
        }
        return what + " answered " + (status >= 0 && status < STATUS_NAMES.length ? STATUS_NAMES[status]
                : status == -1 ? "a malformed HealthCheckResponse" : "status " + status);
    }

    /** HealthCheckResponse.status from one length-prefixed message; 0 (UNKNOWN) when absent, -1 if malformed. */
    static int servingStatus(byte[] body) {
        if (body.length < 5 || body[0] != 0) {
            return -1; // none, or compressed although we asked for no compression
        }
        int length = ((body[1] & 0xff) << 24) | ((body[2] & 0xff) << 16) | ((body[3] & 0xff) << 8) | (body[4] & 0xff);
        if (length != body.length - 5) {
            return -1;
        }
        int[] at = {5};
        int status = 0;
        while (at[0] < body.length) {
            long tag = readVarint(body, at);
            if (tag < 0) {
                return -1;
            }
            int wireType = (int) (tag & 7);
            long value = switch (wireType) {
                case 0 -> readVarint(body, at);
                case 2 -> {
                    long n = readVarint(body, at);
                    if (n < 0 || at[0] + n > body.length) {
                        yield -1;
                    }
                    at[0] += (int) n;
                    yield 0;
                }
                case 1 -> skip(body, at, 8);
                case 5 -> skip(body, at, 4);
                default -> -1;
            };
            if (value < 0) {
                return -1;
            }
            if (tag == 0x08) {
                status = (int) Math.min(value, Integer.MAX_VALUE);
            }
        }
        return status;
    }

    private static long skip(byte[] b, int[] at, int n) {
        if (at[0] + n > b.length) {
            return -1;
        }
        at[0] += n;
        return 0;
    }

    private static long readVarint(byte[] b, int[] at) {
        long v = 0;
        for (int shift = 0; shift < 64 && at[0] < b.length; shift += 7) {
            int x = b[at[0]++] & 0xff;
            v |= (long) (x & 0x7f) << shift;
            if ((x & 0x80) == 0) {
                return v;
            }
        }
        return -1;
    }

    private static void writeVarint(ByteArrayOutputStream out, int v) {
        while ((v & ~0x7f) != 0) {
            out.write((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    private static byte[] readBounded(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[256];
        int n;
        while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
            if (out.size() > MAX_ANSWER) {
                throw new IOException("health answer over " + MAX_ANSWER + " bytes");
            }
        }
        return out.toByteArray();
    }
}
