/// The Lua scripts the registry runs with EVAL. Each reads the claim and acts on it in one
/// step inside Redis, so no other node can claim between our check and our write (what a
/// GET then DEL from the client would allow). Redis's Lua has cjson; a value that does not
/// decode to a record is treated as another program's, never as ours.
enum ClusterScripts {
    /// KEYS[1] the stream key, ARGV[1] our nodeId. 1 when deleted, 0 when not ours or gone.
    static let release = """
        local v = redis.call('GET', KEYS[1])
        if not v then return 0 end
        local ok, r = pcall(cjson.decode, v)
        if ok and type(r) == 'table' and r.node == ARGV[1] then
          redis.call('DEL', KEYS[1])
          return 1
        end
        return 0
        """

    /// KEYS[1] the stream key, ARGV[1] our nodeId, ARGV[2] the record, ARGV[3] the TTL in ms.
    /// 1 refreshed, 2 re-claimed (the key was gone), or the other owner's value as a string.
    static let refresh = """
        local v = redis.call('GET', KEYS[1])
        if not v then
          redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
          return 2
        end
        local ok, r = pcall(cjson.decode, v)
        if ok and type(r) == 'table' and r.node == ARGV[1] then
          redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
          return 1
        end
        return v
        """
}
