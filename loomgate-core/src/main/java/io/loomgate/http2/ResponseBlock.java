package io.loomgate.http2;

import io.loomgate.http.Headers;

/**
 * The HPACK block of a response head or of its trailers, as the server sends it: names lower-cased,
 * connection-specific fields dropped, the status indexed when the static table has it. Encoded where the block is
 * wanted: the frame writer calls it under its lock, straight into its batch ({@link FrameWriter#responseHeaders}),
 * so a response's block is never built in an array of its own and copied. Stateless (the encoder uses no dynamic
 * table), so the order in which streams' blocks are encoded does not matter to the peer's decoder; only each block's
 * frames must stay contiguous, which the writer's lock keeps.
 */
final class ResponseBlock {
    /** The status of trailers: a block of fields only, no {@code :status}. */
    static final int TRAILERS = 0;

    /** The static table's first {@code :status} entry. */
    private static final int STATUS_INDEX = StaticTable.indexOfName(":status");

    private ResponseBlock() {
    }

    /** Appends a head's block ({@code :status}, then the fields) or, with {@link #TRAILERS}, the fields alone. */
    static void encode(HeaderBlock out, int status, Headers headers) {
        if (status != TRAILERS) {
            int statusIndex = StaticTable.indexOf(STATUS_INDEX, statusText(status));
            if (statusIndex != 0) {
                HpackEncoder.integer(out, 0x80, 7, statusIndex);
            } else {
                HpackEncoder.field(out, ":status", Integer.toString(status));
            }
        }
        for (int i = 0; i < headers.size(); i++) {
            String name = LowerCaseNames.known(headers.name(i));
            if (name == null) {
                // not a name the table holds, so none of those dropped below: lower-cased as it is written
                HpackEncoder.fieldLowerCasing(out, headers.name(i), headers.value(i));
                continue;
            }
            switch (name) {
                case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade" -> {
                    // connection-specific: meaningless in HTTP/2 and malformed if sent (RFC 9113 §8.2.2)
                }
                default -> HpackEncoder.field(out, name, headers.value(i));
            }
        }
    }

    /** A room guess for a block of {@code fields} fields (the batch is grown if it is short). */
    static int estimate(Headers fields) {
        return 16 + fields.size() * 24;
    }

    /** The static table's statuses as the strings it holds (no string made for them), others as "". */
    private static String statusText(int status) {
        return switch (status) {
            case 200 -> "200";
            case 204 -> "204";
            case 206 -> "206";
            case 304 -> "304";
            case 400 -> "400";
            case 404 -> "404";
            case 500 -> "500";
            default -> "";
        };
    }
}
