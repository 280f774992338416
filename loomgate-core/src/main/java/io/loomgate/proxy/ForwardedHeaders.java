package io.loomgate.proxy;

import io.loomgate.http.Cidr;
import io.loomgate.http.FieldNamePatterns;
import io.loomgate.http.Headers;
import io.loomgate.server.TlsInfo;
import io.loomgate.http.IpLiteral;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Adds X-Forwarded-For/-Proto/-Host/-Port, Forwarded (RFC 7239) and Via (RFC 9110 §7.6.3) to a request going
 * upstream. A client inside {@code trustedProxies} is another proxy whose forwarding fields are kept and appended
 * to; anyone else's are replaced, so a client cannot pass off a forged address as the hop before us. The fields
 * {@code stripped} names ({@code server.strip-request-headers}: X-Real-IP, X-Forwarded-Prefix, X-Original-URL,
 * X-Rewrite-URL, X-Envoy-* by default) are removed from anyone but a trusted proxy, as Envoy removes x-envoy-* from
 * external requests.
 *
 * <p>{@code X-Forwarded-Client-Cert} (Envoy's format: {@code Hash=<sha-256 hex of the DER>;Subject="<RFC 2253>"}) is
 * always removed, from trusted proxies too, and set only from the certificate this gateway verified itself.
 *
 * <p>{@link #apply} runs before the route is matched (as Envoy's connection manager edits these fields before it
 * routes), so a predicate on any of these fields sees what the origin will be sent, never the client's own copy.
 */
final class ForwardedHeaders {
    static final String VIA = "1.1 loomgate";
    /** Via's received-protocol is the version of the hop the message came over (RFC 9110 §7.6.3): these too. */
    static final String VIA_2 = "2 loomgate";
    static final String VIA_1_0 = "1.0 loomgate";
    /** The received-by of this gateway's Via entries (RFC 9110 §7.6.3's pseudonym). */
    static final String PSEUDONYM = "loomgate";

    /**
     * This gateway's Via entry for a message received as {@code version} (a head's: {@code HTTP/1.1},
     * {@code HTTP/1.0}, {@code HTTP/2.0}): constants, so no string per request.
     */
    static String via(String version) {
        if (version == null || version.length() < 8) {
            return VIA;
        }
        return switch (version.charAt(5)) {
            case '2' -> VIA_2;
            case '1' -> version.endsWith(".0") ? VIA_1_0 : VIA;
            default -> VIA;
        };
    }

    /** RFC 8586's loop field: each CDN (here, each gateway instance) appends its entry and never removes one. */
    static final String CDN_LOOP = "CDN-Loop";
    /** {@link #apply}'s answer for a request that came back to this very instance (its own CDN-Loop token). */
    static final int RETURNED_HERE = -1;

    private final List<Cidr> trustedProxies;
    private final FieldNamePatterns stripped;
    /**
     * This instance's random id: 96 bits, base64url (16 characters, a token as RFC 8586's parameter wants). Made
     * with the proxy handler, which a reload keeps (it swaps the routes only), so it lasts as long as the process's
     * gateway; two gateways, even in one JVM, never share one, so a chain of them is not taken for a loop.
     */
    private final String loopId;
    /** {@code loomgate; id=<loopId>}: the entry every forwarded request carries, one string for all of them. */
    private final String loopEntry;
    /**
     * The text of the last local port seen: a listener's, the same for nearly every request, so X-Forwarded-Port
     * needs no new string each time. Any thread may replace it (an immutable pair: a race only costs a string).
     */
    private volatile PortText lastPort = new PortText(-1, "");
    /**
     * The last Forwarded element made: the same client address, scheme and host for every request of a connection
     * (and of many connections behind one balancer), so it needs no new string each time (~90 B a request at W8).
     * Any thread may replace it, as {@link #lastPort}.
     */
    private volatile ForwardedText lastElement = new ForwardedText("", "", null, "");

    ForwardedHeaders(List<Cidr> trustedProxies, FieldNamePatterns stripped) {
        this.trustedProxies = List.copyOf(trustedProxies);
        this.stripped = stripped;
        byte[] id = new byte[12];
        new SecureRandom().nextBytes(id);
        this.loopId = Base64.getUrlEncoder().withoutPadding().encodeToString(id);
        this.loopEntry = PSEUDONYM + "; id=" + loopId;
    }

    /** This instance's CDN-Loop entry ({@code loomgate; id=...}), as every request it forwards carries it. */
    String loopEntry() {
        return loopEntry;
    }

    ForwardedHeaders(List<Cidr> trustedProxies) {
        this(trustedProxies, FieldNamePatterns.STRIPPED_BY_DEFAULT);
    }

    static final String CLIENT_CERT = "X-Forwarded-Client-Cert";

    void apply(Headers h, InetSocketAddress client, InetSocketAddress local, String clientHost) {
        apply(h, client, client.getAddress().getHostAddress(), local, clientHost, null, null);
    }

    /**
     * @param ip      {@code client}'s address as text (the connection keeps it: not made again per request)
     * @param version the request's protocol version as its head says ({@code HTTP/2.0} over HTTP/2), for Via
     * @return {@link #RETURNED_HERE} when the request's CDN-Loop already holds this instance's id (it was forwarded
     *         by this gateway before: a loop, found at its first return); else how many entries of its Via a Loomgate
     *         wrote ({@link #ownEntries}), the passes through other Loomgates; 0 without a Via. A request without
     *         either field costs no scan
     */
    int apply(Headers h, InetSocketAddress client, String ip, InetSocketAddress local, String clientHost,
               TlsInfo tls, String version) {
        String proto = tls == null ? "http" : "https";
        InetAddress addr = client.getAddress();
        String port = portText(local.getPort());
        String element = forwardedElement(addr, ip, proto, clientHost);
        boolean trusted = isTrusted(addr);
        if (trusted) {
            h.remove(CLIENT_CERT);
        } else {
            removeUntrusted(h);
        }
        if (tls != null && tls.clientCertificate() != null) {
            h.add(CLIENT_CERT, clientCert(tls.clientCertificate())); // removed above either way
        }
        if (trusted) {
            appendToTrustedChain(h, ip, proto, port, clientHost, element);
        } else {
            addOwn(h, ip, proto, port, clientHost, element);
        }
        String via = joined(h, "Via");
        String own = via(version);
        h.set("Via", via == null ? own : via + ", " + own);
        if (appendLoopEntry(h)) {
            return RETURNED_HERE;
        }
        return via == null ? 0 : ownEntries(via);
    }

    /**
     * Appends this instance's entry to CDN-Loop (RFC 8586 §2: intermediaries append, never remove, whoever the client
     * is) and says whether the field already held it. Without the field: one add of a constant, no scan.
     */
    private boolean appendLoopEntry(Headers h) {
        String loop = joined(h, CDN_LOOP);
        if (loop == null) {
            h.add(CDN_LOOP, loopEntry);
            return false;
        }
        h.set(CDN_LOOP, loop + ", " + loopEntry);
        return loop.contains(loopId); // 96 random bits: no other hop's entry holds them by chance
    }

    /**
     * The entries of {@code via} whose received-by is {@link #PSEUDONYM} ({@code 1.1 loomgate}, {@code 2 loomgate},
     * with or without a comment): a request that comes back to a Loomgate has one more each pass, which is how a
     * route whose origin leads back to the gateway is found (see {@code RequestScreen.refuseLoop}).
     */
    static int ownEntries(String via) {
        int n = 0;
        int len = PSEUDONYM.length();
        for (int i = via.indexOf(PSEUDONYM); i >= 0; i = via.indexOf(PSEUDONYM, i + len)) {
            int end = i + len;
            boolean afterProtocol = i > 0 && (via.charAt(i - 1) == ' ' || via.charAt(i - 1) == '\t');
            boolean whole = end == via.length() || via.charAt(end) == ',' || via.charAt(end) == ' '
                    || via.charAt(end) == '\t';
            if (afterProtocol && whole) {
                n++;
            }
        }
        return n;
    }

    /** A trusted proxy's forwarding fields are kept: the peer is appended to its lists, missing fields are added. */
    private static void appendToTrustedChain(Headers h, String ip, String proto, String port, String clientHost,
                                             String element) {
        String xff = joined(h, "X-Forwarded-For");
        h.set("X-Forwarded-For", xff == null ? ip : xff + ", " + ip);
        if (!h.contains("X-Forwarded-Proto")) {
            h.set("X-Forwarded-Proto", proto);
        }
        if (!h.contains("X-Forwarded-Host") && clientHost != null) {
            h.set("X-Forwarded-Host", clientHost);
        }
        if (!h.contains("X-Forwarded-Port")) {
            h.set("X-Forwarded-Port", port);
        }
        String fwd = joined(h, "Forwarded");
        h.set("Forwarded", fwd == null ? element : fwd + ", " + element);
    }

    /**
     * Anyone else's forwarding fields, X-Forwarded-Client-Cert and the stripped fields, in one pass over the fields
     * from the end, so that a removal moves nothing still to see. (A removal per name and then a lookup per name were
     * a dozen passes over every field for each request: ~2% of W8's CPU.)
     */
    private void removeUntrusted(Headers h) {
        for (int i = h.size() - 1; i >= 0; i--) {
            String name = h.name(i);
            if (isForwardingField(name) || stripped.matches(name)) {
                h.removeAt(i);
            }
        }
    }

    /** The gateway's own forwarding fields, once {@link #removeUntrusted} left none of these names to look up. */
    private static void addOwn(Headers h, String ip, String proto, String port, String clientHost,
                               String element) {
        h.add("X-Forwarded-For", ip);
        h.add("X-Forwarded-Proto", proto);
        if (clientHost != null) {
            h.add("X-Forwarded-Host", clientHost);
        }
        h.add("X-Forwarded-Port", port);
        h.add("Forwarded", element);
    }

    /** The fields only the gateway may write for an untrusted client, ignoring case; the length rules most out. */
    static boolean isForwardingField(String name) {
        return switch (name.length()) {
            case 9 -> name.equalsIgnoreCase("Forwarded");
            case 15 -> name.equalsIgnoreCase("X-Forwarded-For");
            case 16 -> name.equalsIgnoreCase("X-Forwarded-Host") || name.equalsIgnoreCase("X-Forwarded-Port");
            case 17 -> name.equalsIgnoreCase("X-Forwarded-Proto");
            case 23 -> name.equalsIgnoreCase(CLIENT_CERT);
            default -> false;
        };
    }

    private String portText(int port) {
        PortText last = lastPort;
        if (last.port() != port) {
            last = new PortText(port, Integer.toString(port));
            lastPort = last;
        }
        return last.text();
    }

    private record PortText(int port, String text) {
    }

    private String forwardedElement(InetAddress addr, String ip, String proto, String clientHost) {
        ForwardedText last = lastElement;
        if (last.ip().equals(ip) && last.proto().equals(proto) && Objects.equals(last.host(), clientHost)) {
            return last.element(); // the node's form (IPv6 quoted) follows from the address's text
        }
        String element = forwardedElement(forwardedNode(addr, ip), proto, clientHost);
        lastElement = new ForwardedText(ip, proto, clientHost, element);
        return element;
    }

    private record ForwardedText(String ip, String proto, String host, String element) {
    }

    /** Envoy's XFCC element for a certificate: its SHA-256 hash (lower-case hex) and its subject, quoted. */
    static String clientCert(X509Certificate cert) {
        String hash;
        try {
            hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("cannot hash a verified certificate", e);
        }
        String subject = cert.getSubjectX500Principal().getName();
        return "Hash=" + hash + ";Subject=\"" + subject.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * The client behind the peer: the peer itself unless it is a trusted proxy; otherwise the X-Forwarded-For entries
     * are walked from the right (the hop nearest us) past every trusted proxy, and the first address that is not one
     * is the client (nginx's {@code real_ip_recursive}). The answer is the same before and after {@link #apply},
     * which appends the peer itself. Null when the entry reached is not an IP literal: unknowable, not guessed.
     */
    InetAddress clientIp(InetAddress peer, Headers h) {
        if (!isTrusted(peer)) {
            return peer;
        }
        InetAddress farthest = peer;
        List<String> fields = h.all("X-Forwarded-For");
        for (int f = fields.size() - 1; f >= 0; f--) {
            String[] hops = fields.get(f).split(",");
            for (int i = hops.length - 1; i >= 0; i--) {
                String hop = hops[i].trim();
                if (hop.isEmpty()) {
                    continue;
                }
                InetAddress a = IpLiteral.parse(hop);
                if (a == null) {
                    return null;
                }
                if (!isTrusted(a)) {
                    return a;
                }
                farthest = a;
            }
        }
        return farthest; // every hop is a trusted proxy: the farthest one is as near the client as we can tell
    }

    boolean isTrusted(InetAddress addr) {
        for (int i = 0; i < trustedProxies.size(); i++) { // no iterator: this runs for every request
            if (trustedProxies.get(i).contains(addr)) {
                return true;
            }
        }
        return false;
    }

    /** Several fields of one list-valued name are one list (RFC 9110 §5.3); keep them in order. */
    private static String joined(Headers h, String name) {
        int count = h.count(name);
        if (count == 0) {
            return null;
        }
        if (count == 1) {
            return h.first(name);
        }
        return String.join(", ", h.all(name));
    }

    /** RFC 7239 §6: an IPv6 node is quoted and bracketed. */
    private static String forwardedNode(InetAddress addr, String ip) {
        return addr instanceof java.net.Inet6Address ? "\"[" + ip + "]\"" : ip;
    }

    /**
     * This hop's Forwarded element, in one concatenation whichever parts it has (a host with a port, the usual one,
     * is quoted: a nested concatenation for it would be a string more per request).
     */
    private static String forwardedElement(String node, String proto, String clientHost) {
        if (clientHost == null) {
            return "for=" + node + ";proto=" + proto;
        }
        if (isToken(clientHost)) {
            return "for=" + node + ";proto=" + proto + ";host=" + clientHost;
        }
        return "for=" + node + ";proto=" + proto + ";host=\"" + escaped(clientHost) + "\"";
    }

    /** Whether the value may go unquoted (RFC 7239 §4: a token; here the characters a host name uses). */
    private static boolean isToken(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_' || c == '~')) {
                return false;
            }
        }
        return true;
    }

    /** The value's backslashes and quotes escaped for a quoted-string (itself when it has none). */
    private static String escaped(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
