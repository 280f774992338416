package io.loomgate.testkit;

import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.ResponseBodyTap;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A FilterExchange over plain fields, recording local replies; the terminal link of a test chain sets a response.
 * Shared by the filter and config tests.
 */
public final class TestExchange implements FilterExchange {
    private final String originalTarget;
    private final Map<String, String> variables = new LinkedHashMap<>();
    private final Map<String, Object> attributes = new HashMap<>();
    private RequestHead request;
    private ResponseHead response;
    private String principal;
    private InetSocketAddress remoteAddress = new InetSocketAddress("127.0.0.1", 50000);
    public byte[] localBody;
    public int localReplies;
    public long bodyLimit = -1;
    /** The tap a filter asked for; the test plays the proxy's part (bytes, then completed or not). */
    public ResponseBodyTap tap;

    public TestExchange(String method, String target) {
        this.request = new RequestHead(method, target, "HTTP/1.1", new Headers().add("Host", "gw.example.com"));
        this.originalTarget = target;
    }

    public static TestExchange get(String target) {
        return new TestExchange("GET", target);
    }

    /** An exchange for this request, with the template variables a route's predicates bound. */
    public TestExchange(RequestHead request, Map<String, String> variables) {
        this.request = request;
        this.originalTarget = request.target();
        this.variables.putAll(variables);
    }

    public TestExchange variable(String name, String value) {
        variables.put(name, value);
        return this;
    }

    /** A terminal link that answers 200 with one header, as an origin would. */
    public static FilterChain origin() {
        return exchange -> {
            ResponseHead head = ResponseHead.of(200);
            head.headers().add("X-Origin", "yes");
            exchange.setResponse(head);
        };
    }

    @Override
    public String routeId() {
        return "test-route";
    }

    @Override
    public RequestHead request() {
        return request;
    }

    @Override
    public void setRequest(RequestHead request) {
        this.request = request;
    }

    @Override
    public String originalTarget() {
        return originalTarget;
    }

    @Override
    public Map<String, String> uriVariables() {
        return variables;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    public TestExchange remoteAddress(InetSocketAddress address) {
        this.remoteAddress = address;
        return this;
    }

    @Override
    public ResponseHead response() {
        return response;
    }

    @Override
    public void setResponse(ResponseHead response) {
        this.response = response;
    }

    @Override
    public void replyLocally(ResponseHead head, byte[] body) {
        localReplies++;
        localBody = body;
        response = head;
    }

    @Override
    public Map<String, Object> attributes() {
        return attributes;
    }

    @Override
    public String principal() {
        return principal;
    }

    @Override
    public void setPrincipal(String name) {
        principal = name;
    }

    @Override
    public void limitRequestBody(long maxBytes) {
        bodyLimit = maxBytes;
    }

    /** The request body {@link #cacheRequestBody} gives; how many times it was asked for. */
    public byte[] requestBody = new byte[0];
    public int bodyReads;

    @Override
    public byte[] cacheRequestBody(long maxBytes) throws IOException {
        bodyReads++;
        if (requestBody.length > maxBytes) {
            throw new IOException("over " + maxBytes);
        }
        return requestBody;
    }

    @Override
    public void tapResponseBody(ResponseBodyTap tap) {
        this.tap = tap;
    }
}
