/**
 * gRPC's wire vocabulary, as gRPC's PROTOCOL-HTTP2.md writes it: which content types are gRPC ({@link Grpc}), the
 * status codes ({@link GrpcStatus}), the {@code grpc-timeout} value ({@link GrpcTimeout}) and the percent-encoding of
 * {@code grpc-message} ({@link GrpcMessage}). No I/O and no decisions: the proxy decides which status a gateway
 * failure becomes ({@code proxy.GrpcReplies}, the one table) and writes the answer ({@code proxy.LocalReplies}).
 */
package io.loomgate.grpc;
