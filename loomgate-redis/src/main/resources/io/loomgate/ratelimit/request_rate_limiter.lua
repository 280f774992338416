-- Token bucket, one atomic call per request: Spring Cloud Gateway's request_rate_limiter.lua semantics and key
-- scheme, so SCG and Loomgate replicas can share one limit. Time comes from the Redis server (whole seconds, as SCG),
-- so gateways with skewed clocks agree. Both keys expire after twice the time the bucket takes to fill.
-- KEYS: request_rate_limiter.{key}.tokens, request_rate_limiter.{key}.timestamp
-- ARGV: replenish rate (tokens/s), burst capacity, '' (SCG's unused 'now'), requested tokens
-- Returns { 1 if allowed else 0, tokens left }.
redis.replicate_commands()

local tokens_key = KEYS[1]
local timestamp_key = KEYS[2]

local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local now = tonumber(redis.call('TIME')[1])
local requested = tonumber(ARGV[4])

local fill_time = capacity / rate
local ttl = math.floor(fill_time * 2)

local last_tokens = tonumber(redis.call('get', tokens_key))
if last_tokens == nil then
  last_tokens = capacity
end

local last_refreshed = tonumber(redis.call('get', timestamp_key))
if last_refreshed == nil then
  last_refreshed = 0
end

local delta = math.max(0, now - last_refreshed)
local filled_tokens = math.min(capacity, last_tokens + (delta * rate))
local allowed = filled_tokens >= requested
local new_tokens = filled_tokens
local allowed_num = 0
if allowed then
  new_tokens = filled_tokens - requested
  allowed_num = 1
end

if ttl > 0 then
  redis.call('setex', tokens_key, ttl, new_tokens)
  redis.call('setex', timestamp_key, ttl, now)
end

return { allowed_num, new_tokens }
