package io.loomgate.http;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IP address range such as {@code 10.0.0.0/8} or {@code ::1/128}; a bare address is a range of one.
 *
 * @param network the network address bytes (4 or 16)
 * @param prefix  the number of leading bits that must match
 */
public record Cidr(byte[] network, int prefix) {

    /**
     * Parses a literal range. Never resolves names.
     *
     * @throws IllegalArgumentException naming what was expected
     */
    public static Cidr parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        if (addr.isEmpty() || !addr.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':')) {
            throw new IllegalArgumentException("expected an IP address or CIDR range like 10.0.0.0/8, got '" + text + "'");
        }
        byte[] bytes;
        try {
            bytes = InetAddress.getByName(addr).getAddress(); // a literal: no lookup happens
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("expected an IP address or CIDR range like 10.0.0.0/8, got '" + text + "'");
        }
        int max = bytes.length * 8;
        int prefix = max;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > max) {
                throw new IllegalArgumentException("CIDR prefix must be 0.." + max + " in '" + text + "'");
            }
        }
        return new Cidr(bytes, prefix);
    }

    public boolean contains(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length != network.length) {
            return false;
        }
        int full = prefix / 8;
        for (int i = 0; i < full; i++) {
            if (a[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[full] & mask) == (network[full] & mask);
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefix;
        } catch (UnknownHostException e) {
            return "?/" + prefix;
        }
    }
}
