/**
 * The HTTP vocabulary: message heads, header fields, limits, methods and statuses. No I/O, no dependencies
 * beyond the JDK; every other package speaks in these types.
 */
package io.loomgate.http;
