package dev.mcpgate.redis;

/**
 * The store's server-side scripts. Each is one round trip, atomic on the server, and reads the
 * decision clock there ({@code TIME}), never the JVM's. A claim is one hash under one key: {@code
 * h} argument hash, {@code s} state, {@code t} lease token, {@code a} attempt, {@code c} created,
 * {@code l} lease end, {@code e} expiry, {@code d} completed, {@code k} result kind, {@code r}
 * result; times in epoch milliseconds. The key's own expiry is the row's expiry plus a grace, so
 * Redis removes a claim by itself a little after it has expired.
 */
final class Scripts {
  private Scripts() {}

  private static final String NOW =
      """
      local t = redis.call('TIME')
      local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      local function n(x) return string.format('%.0f', x) end
      """;

  /**
   * KEYS: claim. ARGV: hash, token, lease ms, retention ms, grace ms, the token replaced (empty for
   * none). Returns {'A' or 'E', now, h, s, t, a, c, l, e, d, k, r}: acquired (the new row) or
   * existing (the row found, unchanged); or {'N', now}: no row, and a claim replacing a token wrote
   * none. The decision is the SPI's one takeover rule ({@code spi.Takeover}): only an in-progress
   * row is taken over by lease expiry; an unknown one stays fenced until it expires; a claim
   * replacing a token writes only over a row that holds it. A live in-progress row that already
   * holds the request's token is the request's own (tokens are new per attempt): the same script
   * sent again after its reply was lost (a Lettuce client with its default, at-least-once options
   * re-sends what was unanswered when a connection closes), acquired with its lease from now (the
   * re-sent command may arrive late). That holds for a claim replacing a token too, whose first run
   * put its own token in place of the one it replaced, so it is checked first.
   */
  static final String CLAIM =
      NOW
          + """
          local key, hash, token, replacing = KEYS[1], ARGV[1], ARGV[2], ARGV[6]
          local lease, retention, grace = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
          local f = redis.call('HMGET', key, 'h', 's', 't', 'a', 'c', 'l', 'e', 'd', 'k', 'r')
          local attempt = 1
          if f[2] and f[3] == token and f[2] == 'IN_PROGRESS' and tonumber(f[7]) > now then
            -- this request's own row (tokens are new per attempt): its first run's reply was lost
            -- and the client sent it again, maybe late; acquired, with the lease from now
            local leaseEnd, e = now + lease, tonumber(f[7])
            redis.call('HSET', key, 'l', n(leaseEnd))
            if e < leaseEnd then
              e = leaseEnd
              redis.call('HSET', key, 'e', n(e))
              redis.call('PEXPIREAT', key, n(e + grace))
            end
            return {'A', n(now), f[1], f[2], f[3], f[4], f[5], n(leaseEnd), n(e), false, false,
                    false}
          end
          if replacing ~= '' and not f[2] then return {'N', n(now)} end
          if f[2] then
            local expired = tonumber(f[7]) <= now
            local takeable = (replacing == '' or f[3] == replacing) and (expired
                or (f[2] == 'IN_PROGRESS' and tonumber(f[6]) <= now and f[1] == hash))
            if not takeable then
              return {'E', n(now), f[1], f[2], f[3], f[4], f[5], f[6], f[7],
                      f[8] or false, f[9] or false, f[10] or false}
            end
            if not expired then attempt = tonumber(f[4]) + 1 end
          end
          -- the first write is the HSET, over the row taken over: a full Redis (noeviction) refuses
          -- a script's write that needs memory only before the script has written, so a takeover
          -- is refused there as the holder's renewals are
          local expires = now + retention
          redis.call('HSET', key, 'h', hash, 's', 'IN_PROGRESS', 't', token, 'a', n(attempt),
                     'c', n(now), 'l', n(now + lease), 'e', n(expires))
          if f[2] then redis.call('HDEL', key, 'd', 'k', 'r') end
          redis.call('PEXPIREAT', key, n(expires + grace))
          return {'A', n(now), hash, 'IN_PROGRESS', token, tostring(attempt), n(now),
                  n(now + lease), n(expires), false, false, false}
          """;

  /**
   * KEYS: claim. ARGV: token, retention ms, kind, result, grace ms. Completes only a row held by
   * the token and not completed. Returns 1 or 0; 1 also when the row is completed by the token with
   * this very kind and result (the same script sent again after its reply was lost: the result is
   * stored, and 0 would say it was not).
   */
  static final String COMPLETE =
      NOW
          + """
          local f = redis.call('HMGET', KEYS[1], 't', 's')
          if f[1] ~= ARGV[1] or not f[2] then return 0 end
          if f[2] == 'COMPLETED' then
            -- 1 only when this token's completion with this very result is stored: the same
            -- command sent again after its reply was lost
            local r = redis.call('HMGET', KEYS[1], 'k', 'r')
            if r[1] == ARGV[3] and r[2] == ARGV[4] then return 1 end
            return 0
          end
          local expires = now + tonumber(ARGV[2])
          redis.call('HSET', KEYS[1], 's', 'COMPLETED', 'd', n(now), 'e', n(expires),
                     'k', ARGV[3], 'r', ARGV[4])
          redis.call('PEXPIREAT', KEYS[1], n(expires + tonumber(ARGV[5])))
          return 1
          """;

  /** KEYS: claim. ARGV: token. Deletes a row held by the token and not completed. 1 or 0. */
  static final String RELEASE =
      """
      local f = redis.call('HMGET', KEYS[1], 't', 's')
      if f[1] ~= ARGV[1] or not f[2] or f[2] == 'COMPLETED' then return 0 end
      redis.call('DEL', KEYS[1])
      return 1
      """;

  /**
   * KEYS: claim. ARGV: token, lease ms, grace ms. Extends the lease of an in-progress row held by
   * the token (and its expiry, to outlive the lease). 1 or 0.
   */
  static final String EXTEND =
      NOW
          + """
          local f = redis.call('HMGET', KEYS[1], 't', 's', 'e')
          if f[1] ~= ARGV[1] or f[2] ~= 'IN_PROGRESS' then return 0 end
          local leaseEnd = now + tonumber(ARGV[2])
          redis.call('HSET', KEYS[1], 'l', n(leaseEnd))
          if tonumber(f[3]) < leaseEnd then
            redis.call('HSET', KEYS[1], 'e', n(leaseEnd))
            redis.call('PEXPIREAT', KEYS[1], n(leaseEnd + tonumber(ARGV[3])))
          end
          return 1
          """;

  /**
   * KEYS: claim. ARGV: token, fence ms, grace ms. Marks an in-progress row held by the token
   * unknown and sets it to expire a fence from now (the key a grace after). 1 or 0. An unknown row
   * held by the token is marked again (the same script sent again after its reply was lost: the key
   * is fenced by this token, and 0 would say the lease was taken over).
   */
  static final String MARK_UNKNOWN =
      NOW
          + """
          local f = redis.call('HMGET', KEYS[1], 't', 's')
          if f[1] ~= ARGV[1] or (f[2] ~= 'IN_PROGRESS' and f[2] ~= 'UNKNOWN') then return 0 end
          local expires = now + tonumber(ARGV[2])
          redis.call('HSET', KEYS[1], 's', 'UNKNOWN', 'e', n(expires))
          redis.call('PEXPIREAT', KEYS[1], n(expires + tonumber(ARGV[3])))
          return 1
          """;

  /**
   * KEYS: claim. Deletes it if it is a claim (a hash with a claim's fields and states) that has
   * expired at the server's clock; any other key under the prefix is left as it is. 1 or 0.
   */
  static final String PURGE =
      NOW
          + """
          if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return 0 end
          local f = redis.call('HMGET', KEYS[1], 'e', 's', 't', 'h', 'a')
          local e, st = tonumber(f[1]), f[2]
          if not (e and f[3] and f[4] and f[5]) then return 0 end
          if st ~= 'IN_PROGRESS' and st ~= 'COMPLETED' and st ~= 'UNKNOWN' then return 0 end
          if e > now then return 0 end
          redis.call('DEL', KEYS[1])
          return 1
          """;
}
