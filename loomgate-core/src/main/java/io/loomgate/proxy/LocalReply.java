package io.loomgate.proxy;

import io.loomgate.http.ResponseHead;

/** A filter's own answer instead of the upstream's ({@code replyLocally}): its head and its body (null for none). */
record LocalReply(ResponseHead head, byte[] body) {
}
