package io.loomgate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Spring Cloud's static discovery client, {@code spring.cloud.discovery.client.simple.instances}, as Loomgate's
 * {@code upstreams:}: each service id becomes a named upstream, so an SCG route's {@code uri: lb://SERVICE} finds the
 * instances the file lists, as SCG's load balancer does through {@code SimpleDiscoveryClient}.
 *
 * <p>An instance is written as Spring binds a {@code DefaultServiceInstance}: a {@code uri} (its scheme, host and port;
 * Spring Cloud LoadBalancer rebuilds the request's URL from those and the request's own path, so a path here is
 * dropped) or {@code host}, {@code port} and {@code secure}. {@code instance-id} and {@code service-id} are accepted
 * with no effect (Spring sets the service id from the key). The upstream balances round-robin, Spring Cloud
 * LoadBalancer's default. Instance {@code metadata} (load-balancer hints, zones, weights for the weighted supplier) is
 * refused: write weights as {@code ;weight=N} under {@code upstreams:}.
 */
final class ScgDiscoveryInstances {
    /** Refuses (serving) or drops and lists (importing) a key, as {@link ScgLayout} does for every other key. */
    interface Refusal {
        void refuse(int line, String key, String reason) throws ConfigException;
    }

    private final String file;
    private final Refusal refusal;

    ScgDiscoveryInstances(String file, Refusal refusal) {
        this.file = file;
        this.refusal = refusal;
    }

    /**
     * The upstreams the instances mapping names, added to the file's own {@code upstreams:} entry (replaced in
     * {@code out}) or as a new one. A name in both is refused: one source per upstream.
     *
     * @param written the key as the file wrote it, for messages
     */
    void translate(YamlNode.Entry instances, String written, List<YamlNode.Entry> out) throws ConfigException {
        if (!(instances.value() instanceof YamlNode.Mapping services)) {
            throw new ConfigException(file, instances.line(), written, "expected a mapping of service id to its "
                    + "list of instances, got " + instances.value().describe());
        }
        int at = -1;
        List<YamlNode.Entry> upstreams = new ArrayList<>();
        for (int i = 0; i < out.size(); i++) {
            if (Section.canonical(out.get(i).key()).equals("upstreams")) {
                at = i;
                if (out.get(i).value() instanceof YamlNode.Mapping own) {
                    upstreams.addAll(own.entries());
                } else if (!(out.get(i).value() instanceof YamlNode.Scalar s && s.isNull())) {
                    return; // UpstreamsReader says what is wrong with the section
                }
            }
        }
        for (YamlNode.Entry service : services.entries()) {
            String key = written + "." + service.key();
            for (YamlNode.Entry own : upstreams) {
                if (own.key().equals(service.key())) {
                    throw new ConfigException(file, service.line(), key, "upstreams." + own.key() + " (line "
                            + own.line() + ") names it too; keep one");
                }
            }
            YamlNode uris = instances(service, key);
            if (uris == null) {
                continue; // dropped while importing
            }
            upstreams.add(new YamlNode.Entry(service.key(), service.line(), new YamlNode.Mapping(List.of(
                    new YamlNode.Entry("uris", service.line(), uris),
                    new YamlNode.Entry("load-balancer", service.line(),
                            new YamlNode.Scalar("round-robin", service.line(), false, false))), service.line())));
        }
        YamlNode.Entry section = new YamlNode.Entry("upstreams", at >= 0 ? out.get(at).line() : instances.line(),
                new YamlNode.Mapping(List.copyOf(upstreams), at >= 0 ? out.get(at).line() : instances.line()));
        if (at >= 0) {
            out.set(at, section);
        } else {
            out.add(section);
        }
    }

    /** The service's instances as a {@code uris} list; null when one was dropped (importing). */
    private YamlNode instances(YamlNode.Entry service, String key) throws ConfigException {
        if (!(service.value() instanceof YamlNode.Sequence list) || list.items().isEmpty()) {
            throw new ConfigException(file, service.line(), key, "expected a list of instances (- uri: "
                    + "http://host:port), got " + service.value().describe());
        }
        List<YamlNode> uris = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            YamlNode item = list.items().get(i);
            String where = key + "[" + i + "]";
            if (!(item instanceof YamlNode.Mapping instance)) {
                throw new ConfigException(file, item.line(), where, "expected an instance (uri, or host and port), "
                        + "got " + item.describe());
            }
            String uri = uri(instance, where);
            if (uri == null) {
                return null;
            }
            uris.add(new YamlNode.Scalar(uri, instance.line(), false, false));
        }
        return new YamlNode.Sequence(List.copyOf(uris), list.line());
    }

    private String uri(YamlNode.Mapping instance, String where) throws ConfigException {
        YamlNode.Entry uri = null;
        String host = null;
        String port = null;
        boolean secure = false;
        for (YamlNode.Entry e : instance.entries()) {
            String key = where + "." + e.key();
            String text = e.value() instanceof YamlNode.Scalar s && !s.isNull() ? s.text().trim() : null;
            String name = Section.canonical(e.key());
            if (text == null && !name.equals("metadata")) {
                throw new ConfigException(file, e.line(), key, "expected a value, got " + e.value().describe());
            }
            switch (name) {
                case "uri" -> uri = e;
                case "host" -> host = text;
                case "port" -> port = text;
                case "secure" -> secure = text.equalsIgnoreCase("true");
                case "instanceid", "serviceid" -> {
                    // Spring names the instance, and sets the service id from the key: no effect on routing
                }
                case "metadata" -> {
                    refusal.refuse(e.line(), key, "instance metadata is for Spring Cloud LoadBalancer's hints; "
                            + "write an instance's weight as uri;weight=N under upstreams:");
                    return null;
                }
                default -> throw new ConfigException(file, e.line(), key, "unknown instance key; an instance is "
                        + "uri, or host, port and secure (and instance-id)");
            }
        }
        if (uri != null) {
            if (host != null || port != null) {
                throw new ConfigException(file, uri.line(), where, "write uri, or host and port, not both");
            }
            return origin(((YamlNode.Scalar) uri.value()).text().trim(), uri.line(), where + "." + uri.key());
        }
        if (host == null) {
            throw new ConfigException(file, instance.line(), where, "an instance needs a uri (or a host and port)");
        }
        if (port != null && !port.matches("\\d{1,5}")) {
            throw new ConfigException(file, instance.line(), where + ".port", "expected a port number, got '"
                    + port + "'");
        }
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return (secure ? "https://" : "http://") + h + (port == null ? "" : ":" + port);
    }

    /** A uri's scheme, host and port, as Spring Cloud LoadBalancer rebuilds the request's URL from them. */
    private String origin(String text, int line, String key) throws ConfigException {
        URI parsed;
        try {
            parsed = new URI(text);
        } catch (URISyntaxException e) {
            throw new ConfigException(file, line, key, "not a URI: " + e.getMessage());
        }
        String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || parsed.getHost() == null) {
            throw new ConfigException(file, line, key, "expected http://host:port or https://host:port, got '"
                    + text + "'");
        }
        return scheme + "://" + parsed.getRawAuthority().substring(parsed.getRawAuthority().indexOf('@') + 1);
    }
}
