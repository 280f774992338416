package io.loomgate.config;

import io.loomgate.filter.FilterExchange;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/** The least FilterExchange that runs a configured chain. */
final class ExchangeStub implements FilterExchange {
    private final String original;
    private final Map<String, String> variables;
    private final Map<String, Object> attributes = new HashMap<>();
    private RequestHead request;
    private ResponseHead response;

    ExchangeStub(RequestHead request, Map<String, String> variables) {
        this.request = request;
        this.original = request.target();
        this.variables = variables;
    }

    @Override
    public String routeId() {
        return "stub";
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
        return original;
    }

    @Override
    public Map<String, String> uriVariables() {
        return variables;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return new InetSocketAddress("127.0.0.1", 1);
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
        response = head;
    }

    @Override
    public Map<String, Object> attributes() {
        return attributes;
    }
}
