-- Headway quota store, format version 1. One script for every operation, so that a single
-- EVALSHA is one atomic round trip. Times are epoch milliseconds from the calling instance.
--
-- KEYS[1] count     hash   v=1, remaining, observed, reset, quota, window ('' = absent), assumed
--                          ('1': started by the store at a reset, not reported by a server),
--                          full, whole ('1': the server gives its quota back at its reset),
--                          turn (the turn after the last one told to a refused instance)
-- KEYS[2] leases    hash   lease id -> "<units>:<validUntil>"; "e:<t>" -> units sent (or of
--                          leases ended) by t, taken until a count observed at or after t
-- KEYS[3] hold      string <until>
-- KEYS[4] rate      string "<units>:<periodMs>:<learnedAt>"; with it, a count grows by units
--                          per period from its instant, up to its quota (a refilling server)
-- KEYS[5] instances zset   instance id -> heartbeat deadline
--
-- ARGV[1] op (observe | lease | spent | release | hold | lift | rate | read), ARGV[2] now, ARGV[3] instance id,
-- ARGV[4] heartbeat ms, ARGV[5..] the operation's arguments.
--
-- Format 1 is the first released one ('assumed' belongs to it). A version that changes what a
-- field means or how it is written bumps v; one that only adds a field whose absence means what
-- this script does keeps it (instances of both can share a key during a rolling upgrade).
--
-- Anything found in the keys that this version did not write (wrong type, wrong shape, out of
-- bounds, v ~= 1) is deleted and reported in the reply's last element, never raised; instants
-- past the caps a server's own values get (a hold and a reset at most a day ahead, or a window
-- for a reset) are capped, as a server's are. Work per run is bounded: a leases hash of more
-- than MAXFIELDS fields is deleted whole (UNLINK) rather than read, a string value longer than
-- MAXSTRING bytes is deleted unread, and the warnings are at most MAXWARNINGS short, printable
-- lines.
--
-- Expiry: every write of a key sets its expiry or keeps one at least as long (a hash whose
-- last field goes is deleted by Redis with its TTL, and the next write re-creates it without
-- one: the leases hash gets its expiry at the end of every run that wrote it). A key found
-- without one (another client's) is given the one this version would have given it.

local op = ARGV[1]
local now = tonumber(ARGV[2])
local instance = ARGV[3]
local heartbeat = tonumber(ARGV[4])
local MAXU = 1000000000000
local DAY = 86400000
local MAXWIN = 366 * DAY
local MAXT = 253402300799999 -- 9999-12-31
local MAXLEASES = 1024
-- More fields than a leases hash of this version ever holds (MAXLEASES leases and buckets, 32
-- more buckets between merges, the one being written): such a hash is deleted unread.
local MAXFIELDS = 2 * MAXLEASES
local MAXSTRING = 64
local MAXWARNINGS = 8
local SKEW = 60000
local warnings = {}

local function warn(text)
  if #warnings < MAXWARNINGS then
    table.insert(warnings, text)
  end
end

-- A short, printable excerpt of a value this version did not write, for a warning.
local function excerpt(s)
  local e = string.gsub(string.sub(s, 1, 32), '[^%w%p ]', '?')
  if #s > 32 then
    e = e .. '...(' .. #s .. ' bytes)'
  end
  return '"' .. e .. '"'
end

local function int(s, lo, hi)
  if s == nil or s == false or s == '' or #s > 20 then
    return nil
  end
  if not string.match(s, '^%d+$') then
    return nil
  end
  local n = tonumber(s)
  if n == nil or n < lo or n > hi then
    return nil
  end
  return n
end

local function fmt(n)
  if n == nil then
    return ''
  end
  return string.format('%.0f', n)
end

-- Returns the key's type, deleting the key if it is not of the wanted type.
local function kind(k, want)
  local t = redis.call('TYPE', k)['ok']
  if t ~= 'none' and t ~= want then
    redis.call('UNLINK', k)
    warn(k .. ' was a ' .. t .. ', not a ' .. want .. ': deleted')
    return 'none'
  end
  return t
end

-- Gives k, found without an expiry (another client wrote it), the one this version would give it.
local function keepExpiry(k, ms)
  if redis.call('PTTL', k) == -1 then
    redis.call('PEXPIRE', k, fmt(math.max(1, ms)))
  end
end

-- Returns the value of the string k, or nil: absent, of another type, or longer than any this
-- version writes (deleted unread).
local function shortString(k, what)
  if kind(k, 'string') ~= 'string' then
    return nil
  end
  local n = redis.call('STRLEN', k)
  if n > MAXSTRING then
    redis.call('UNLINK', k)
    warn(k .. ' held ' .. n .. ' bytes, not ' .. what .. ': deleted')
    return nil
  end
  return redis.call('GET', k)
end

-- The latest reset believed of a count with window w: a day ahead (the cap of a server's reset,
-- SanityCaps), or one window if longer (a window the store started itself).
local function farthestReset(w)
  return now + math.max(DAY, w or 0)
end

local function optional(s, lo, hi)
  -- returns value, ok (ok is false when present but invalid)
  if s == nil or s == false or s == '' then
    return nil, true
  end
  local n = int(s, lo, hi)
  return n, n ~= nil
end

local function loadCount()
  if kind(KEYS[1], 'hash') ~= 'hash' then
    return nil
  end
  local h = redis.call('HMGET', KEYS[1], 'v', 'remaining', 'observed', 'reset', 'quota', 'window',
    'assumed', 'full', 'whole', 'turn')
  local r = int(h[2], 0, MAXU)
  local o = int(h[3], 0, MAXT)
  local rs, ok1 = optional(h[4], 0, MAXT)
  local q, ok2 = optional(h[5], 1, MAXU)
  local w, ok3 = optional(h[6], 1, MAXWIN)
  if h[1] ~= '1' or r == nil or o == nil or o > now + SKEW or not (ok1 and ok2 and ok3) then
    redis.call('UNLINK', KEYS[1])
    warn(KEYS[1] .. ' held a count this version does not understand: deleted')
    return nil
  end
  -- Saved again (with its expiry) if capped here or found without an expiry.
  local resave = redis.call('PTTL', KEYS[1]) == -1
  if rs ~= nil and rs > farthestReset(w) + SKEW then
    warn(KEYS[1] .. ' held a reset ' .. fmt(rs - now) .. ' ms ahead: capped')
    rs = farthestReset(w)
    resave = true
  end
  -- 'full' (optional, added within format 1): the most units a count of the key showed the
  -- server holds once all is back (see level); absent or not a number, unknown. 'whole'
  -- (optional, added within format 1): a probe's count of a window the store assumed showed the
  -- server gave at least half its quota back at the reset (see level). 'turn' (optional, added
  -- within format 1): the turn after the last one told to an instance refused while the rate
  -- gives units back (askAgainAt); absent, none.
  return {remaining = r, observed = o, reset = rs, quota = q, window = w, assumed = h[7] == '1',
    full = int(h[8], 0, MAXU), whole = h[9] == '1', turn = int(h[10], 0, MAXT), resave = resave}
end

-- 0. The learned refill rate (a server that gives units back continuously).
-- A rate learned more than a minute ahead (clock skew) is not one; one learned a day ago or
-- more is over (kept for instances whose clocks are behind, until its expiry).
local rate = nil
local rateText = shortString(KEYS[4], 'a rate')
if rateText ~= nil then
  local us, ps, ls = string.match(rateText, '^(%d+):(%d+):(%d+)$')
  local u, p, l = int(us, 1, MAXU), int(ps, 1, MAXWIN), int(ls, 0, MAXT)
  if u == nil or p == nil or l == nil or l > now + SKEW then
    redis.call('UNLINK', KEYS[4])
    warn(KEYS[4] .. ' was not a rate: ' .. excerpt(rateText) .. ': deleted')
  elseif l + DAY <= now then
    if redis.call('PTTL', KEYS[4]) == -1 then
      redis.call('UNLINK', KEYS[4])
    end
  else
    keepExpiry(KEYS[4], l + DAY - now)
    rate = {units = u, period = p, learned = l}
  end
end

-- With a rate, a count is believed until one period after the later of its reset and one period
-- after its instant (by then the whole quota is back), and grows at the rate meanwhile.
local function believedUntil(c)
  local e = c.observed + rate.period
  if c.reset ~= nil and c.reset > e then
    e = c.reset
  end
  return e + rate.period
end

-- The count's units now: refilled at the rate from its instant, up to its quota; at most
-- ASSUMED units (the new window's probes) from a count the store started itself at a reset,
-- until a count of that window arrives (a server need not give the whole quota back); and until
-- the key showed it gives the whole quota back at its reset ('whole'), at most the units the
-- quota per window gives back since the window started (a sliding window, whose previous window
-- still weighs at the reset, refuses a probe sent at it; KeyState.level), for at most
-- `probeWait` ms after the window started (the lease duration: a long window with a small quota
-- would hold its probes back for minutes).
local ASSUMED = 2
local function level(c, probeWait)
  local l = c.remaining
  if rate ~= nil and now > c.observed then
    local back = math.floor((now - c.observed) * rate.units / rate.period)
    local cap = math.max(c.remaining, c.quota or rate.units)
    if c.full ~= nil then
      cap = math.max(c.remaining, math.min(cap, c.full))
    end
    l = math.min(cap, c.remaining + math.min(back, MAXU))
  end
  if c.assumed then
    l = math.min(l, ASSUMED)
    if not c.whole and rate == nil and c.quota ~= nil and c.window ~= nil
        and now < c.observed + (probeWait or 0) then
      local back = 0
      if now > c.observed then
        back = math.min(math.floor((now - c.observed) * c.quota / c.window), MAXU)
      end
      l = math.min(l, back)
    end
  end
  return l
end

-- A count with a quota and a rate but no reset is a bucket: nothing comes back all at once, and
-- what is left is at most its quota, whatever was not used (Refill.bucket).
local function isBucket(c)
  return rate ~= nil and c.reset == nil and c.quota ~= nil and not c.assumed
end

-- A bucket's credit: its remaining units plus those back since its instant, less those taken.
local function credit(c, taken)
  local grown = c.remaining
  if now > c.observed then
    grown = grown + math.min(math.floor((now - c.observed) * rate.units / rate.period), MAXU)
  end
  return grown - taken
end

-- The units leases may take now: the level less the units taken; a bucket's credit, at most its
-- quota.
local function available(c, taken, probeWait)
  if not isBucket(c) then
    return math.max(0, level(c, probeWait) - taken)
  end
  return math.max(0, math.min(math.max(c.remaining, c.quota), credit(c, taken)))
end

-- The count in force now: c itself, the next window's (full quota), or nil when expired.
local function current(c)
  if c == nil then
    return nil
  end
  if rate ~= nil and now < believedUntil(c) then
    return c
  end
  if c.reset == nil then
    if c.observed + (c.window or DAY) > now then
      return c
    end
    return nil
  end
  if c.reset > now then
    return c
  end
  if c.quota == nil or c.window == nil then
    return nil
  end
  local k = math.floor((now - c.reset) / c.window) + 1
  local nr = c.reset + k * c.window
  return {remaining = c.quota, observed = nr - c.window, reset = nr, quota = c.quota,
    window = c.window, changed = true, assumed = true, full = c.full, whole = c.whole}
end

local function countTtl(c)
  local ttl
  if c.reset ~= nil then
    ttl = c.reset - now + (c.window or 1000)
  else
    ttl = c.observed + (c.window or DAY) - now
  end
  if rate ~= nil then
    ttl = math.max(ttl, believedUntil(c) - now)
  end
  return math.max(1, math.min(ttl, MAXWIN + DAY))
end

-- Whether this run wrote the leases hash (or saved the count it expires with), and the latest
-- instant a field it wrote needs: the hash's expiry is set at the end of the run.
local leasesWritten = false
local leasesUntil = 0
local function wroteLeases(v)
  leasesWritten = true
  if v ~= nil and v > leasesUntil then
    leasesUntil = v
  end
end

local function saveCount(c)
  leasesWritten = true
  redis.call('UNLINK', KEYS[1])
  redis.call('HSET', KEYS[1], 'v', '1', 'remaining', fmt(c.remaining), 'observed', fmt(c.observed),
    'reset', fmt(c.reset), 'quota', fmt(c.quota), 'window', fmt(c.window),
    'assumed', c.assumed and '1' or '', 'full', fmt(c.full), 'whole', c.whole and '1' or '',
    'turn', fmt(c.turn))
  redis.call('PEXPIRE', KEYS[1], fmt(countTtl(c)))
end

-- Takes up to `units` out of lease `id` (its entry `<units>:<validUntil>`), removing the entry
-- once empty; returns how many it took, or nil for an entry that is not a lease's.
local function takeFromLease(id, entry, units)
  local us, vs = string.match(entry, '^(%d+):(%d+)$')
  local u = int(us, 1, MAXU)
  if u == nil then
    return nil
  end
  local n = math.min(units, u)
  if n == u then
    redis.call('HDEL', KEYS[2], id)
  else
    redis.call('HSET', KEYS[2], id, fmt(u - n) .. ':' .. vs)
    wroteLeases(int(vs, 0, MAXT))
  end
  return n
end

-- Adds units sent at `at` (epoch ms) to their bucket `e:<at>`, kept until a count observed at
-- or after that instant holds them.
local function addSent(sent, at)
  local field = 'e:' .. fmt(at)
  local bs = redis.call('HGET', KEYS[2], field)
  local b = 0
  if bs then
    b = int(string.match(bs, '^(%d+):') or '', 0, MAXU) or 0
  end
  redis.call('HSET', KEYS[2], field, fmt(math.min(MAXU, b + sent)) .. ':' .. fmt(at))
  wroteLeases(at)
end

-- 1. The count: stored, possibly replaced (observe), rolled to the next window or expired.
local stored = loadCount()
local laterInForce = false
-- The request that carried the count was counted before the count in force (which holds it).
local countedBefore = false
local c = current(stored)
if stored ~= nil and c == nil then
  redis.call('UNLINK', KEYS[1])
end
-- A leases hash larger than any this version keeps (junk written by another client) is deleted
-- unread: reading it would hold Redis for as long as it is large.
if kind(KEYS[2], 'hash') == 'hash' then
  local n = redis.call('HLEN', KEYS[2])
  if n > MAXFIELDS then
    redis.call('UNLINK', KEYS[2])
    warn(KEYS[2] .. ' held ' .. n .. ' fields, more than this version keeps (' .. MAXFIELDS
      .. '): deleted')
  end
end
if op == 'observe' then
  local r = int(ARGV[5], 0, MAXU)
  local o = int(ARGV[6], 0, MAXT)
  local rs = int(ARGV[7], 0, MAXT)
  local q = int(ARGV[8], 1, MAXU)
  local w = int(ARGV[9], 1, MAXWIN)
  if rs ~= nil and rs > farthestReset(w) then
    rs = farthestReset(w)
  end
  if r ~= nil and o ~= nil then
    if o > now + SKEW then
      o = now
    end
    -- A count with more units left and a reset no later than a second after the stored one's
    -- (the same window, or a refilling server: the more left, the sooner all are back), observed
    -- within a second after it, is from a request the server counted earlier: not newer.
    local earlier = c ~= nil and r > c.remaining and rs ~= nil and c.reset ~= nil
      and rs <= c.reset + 1000 and o - c.observed < 1000
    -- A reported count replaces one the store started itself unless it holds for more than a
    -- second before that window started, or it resets more than half a window after it started.
    local ofAssumed = c ~= nil and c.assumed and (o >= c.observed - 1000
      or (rs ~= nil and rs > c.observed + math.floor((c.window or 0) / 2)))
    -- A count with fewer units left, a reset within a second of the stored one's (the same
    -- window of a server that does not refill), observed within a second before it, is from a
    -- request the server counted later (it reached the server later, though sent earlier): it
    -- holds everything the stored one holds, and more; it replaces it at the stored instant.
    local later = c ~= nil and not c.assumed and rate == nil and r < c.remaining and rs ~= nil
      and c.reset ~= nil and rs <= c.reset + 1000 and rs >= c.reset - 1000
      and c.observed - o < 1000
    -- A count with more units left, a reset within a second of the stored one's and observed
    -- within a second of it, of a key that gives its quota back whole at its reset ('whole')
    -- and has no rate (a fixed window, whose count never rises within a window), is from a
    -- request the server counted before the stored one's: the stored count holds its units
    -- (FleetMemory.countedBefore). The last requests of a window, answered in another order
    -- than the server counted them, would otherwise stay taken until a later count that never
    -- comes.
    countedBefore = c ~= nil and not c.assumed and c.whole and rate == nil and r > c.remaining
      and rs ~= nil and c.reset ~= nil and rs <= c.reset + 1000 and rs >= c.reset - 1000
      and math.abs(o - c.observed) < 1000
    -- The first count of a window the store started itself that holds less than half the quota
    -- (of the new window: it resets more than half a window after it started) shows a server
    -- that does not give the whole quota back at its reset: it refills continuously, at the
    -- quota per window from now (the same rule as Refill.shownBy). Only from a count carried by
    -- one of the window's probes (a request lent from a lease the store holds): a count whose
    -- request went outside the store's leases (an instance pacing alone while the store was
    -- down) counts units the store never lent, and says nothing of how the server refills.
    local probed = ARGV[10] ~= nil and ARGV[10] ~= '' and string.sub(ARGV[10], 1, 2) ~= 'e:'
      and (int(ARGV[11], 0, MAXU) or 0) > 0 and redis.call('HEXISTS', KEYS[2], ARGV[10]) == 1
    -- A probe's count that shows at least half the quota shows a server that gives it back at
    -- its reset: later windows' probes go at the reset ('whole', Refill.shownWhole).
    local whole = c ~= nil and c.whole
    if ofAssumed and rate == nil and probed then
      local fq, fw = q or c.quota, w or c.window
      if fq ~= nil and fw ~= nil and fq >= 2 and r < math.floor(fq / 2) and rs ~= nil
          and rs > c.observed + math.floor(fw / 2) then
        redis.call('SET', KEYS[4], fmt(fq) .. ':' .. fmt(fw) .. ':' .. fmt(now), 'PX', fmt(DAY))
        rate = {units = fq, period = fw, learned = now}
      elseif fq ~= nil and r >= math.floor(fq / 2) then
        whole = true
      end
    end
    if c == nil or ofAssumed or (c.observed <= o and not earlier) then
      local n = current({remaining = r, observed = o, reset = rs, quota = q, window = w,
        full = c and c.full, whole = whole, turn = c and c.turn})
      if n ~= nil then
        n.changed = true
        c = n
      end
    elseif later then
      local n = current({remaining = r, observed = c.observed, reset = rs, quota = q, window = w,
        full = c.full, whole = whole, turn = c.turn})
      if n ~= nil then
        n.changed = true
        c = n
        laterInForce = true
      end
    end
  end
end
-- With a rate, a count's remaining units plus what the rate gives back until its reset (when all
-- of a refilling server is back) is what the server holds then: a GCRA's or a token bucket's
-- burst, which may be far below the quota per window. The most any count showed is kept
-- ('full'), and a count grows to no more (Refill.full).
if c ~= nil and rate ~= nil and not c.assumed and c.reset ~= nil and c.reset > c.observed then
  local cap = math.max(c.remaining, c.quota or rate.units)
  local f = math.min(cap, c.remaining
    + math.min(math.floor((c.reset - c.observed) * rate.units / rate.period), MAXU))
  if c.full == nil or f > c.full then
    c.full = f
    c.changed = true
  end
end
if c ~= nil and (c.changed or c.resave) then
  saveCount(c)
end

-- 1b. observe with the units of the request that carried the count (ARGV[10] lease id,
-- ARGV[11] units, ARGV[12] sent at): they leave the lease; taken no more if the count is the one
-- in force now or was counted after them, else kept in the bucket "e:<sent at>" like units
-- reported spent.
if op == 'observe' and ARGV[10] ~= nil and ARGV[10] ~= '' and string.sub(ARGV[10], 1, 2) ~= 'e:'
    and kind(KEYS[2], 'hash') == 'hash' then
  local units = int(ARGV[11], 0, MAXU)
  local at = int(ARGV[12], 0, MAXT)
  local entry = redis.call('HGET', KEYS[2], ARGV[10])
  if entry and units ~= nil and at ~= nil then
    local sent = takeFromLease(ARGV[10], entry, units)
    if sent ~= nil then
      local inForce = laterInForce
        or (c ~= nil and c.changed and c.observed == int(ARGV[6], 0, MAXT))
      if sent > 0 and not inForce and not countedBefore
          and not (c ~= nil and at <= c.observed) then
        addSent(sent, at)
      end
    end
  end
end

-- 2. Leases: drop those that ended by the count's instant; the rest are taken since it. Ended
-- leases (spent, or not returned) are merged into buckets of 100 ms by their end, "e:<end>",
-- and more than 32 buckets are coarsened (their ends rounded up to a coarser grain) until 32 or
-- fewer are left, so that the hash stays small between counts; a bucket goes when a count is
-- observed at or after its end.
local taken = 0
local leases = 0
local probe = nil
if kind(KEYS[2], 'hash') == 'hash' then
  local all = redis.call('HGETALL', KEYS[2])
  local buckets = {}
  local bucketFields = {}
  local dirty = false
  local junk, firstJunk = 0, nil
  for i = 1, #all, 2 do
    local u, v = nil, nil
    if all[i] == 'p' then
      -- The end of the fleet's probe of a key without a count (step 5, lease), "1:<end>" (the
      -- shape of a lease, which a version without probes keeps or merges as one): kept while
      -- there is no count.
      probe = #all[i + 1] <= 41 and int(string.match(all[i + 1], '^1:(%d+)$') or '', 0, MAXT)
      if not probe or c ~= nil then
        redis.call('HDEL', KEYS[2], 'p')
        probe = nil
      end
    elseif #all[i + 1] <= 41 then
      local us, vs = string.match(all[i + 1], '^(%d+):(%d+)$')
      u = int(us, 1, MAXU)
      v = int(vs, 0, MAXT)
    end
    if all[i] == 'p' then
      -- read above
    elseif u == nil or v == nil then
      redis.call('HDEL', KEYS[2], all[i])
      junk = junk + 1
      firstJunk = firstJunk or all[i]
    elseif (c ~= nil and v <= c.observed) or (c == nil and v < now - 60000) then
      redis.call('HDEL', KEYS[2], all[i])
    else
      if c ~= nil then
        taken = math.min(MAXU, taken + u)
      end
      if string.sub(all[i], 1, 2) == 'e:' then
        buckets[v] = math.min(MAXU, (buckets[v] or 0) + u)
        table.insert(bucketFields, all[i])
      elseif v <= now then
        local b = math.ceil(v / 100) * 100
        buckets[b] = math.min(MAXU, (buckets[b] or 0) + u)
        redis.call('HDEL', KEYS[2], all[i])
        dirty = true
      else
        leases = leases + 1
      end
    end
  end
  if junk > 0 then
    warn(KEYS[2] .. ': ' .. junk .. ' fields were not leases (the first ' .. excerpt(firstJunk)
      .. '): deleted')
  end
  local count, latest = 0, 0
  for b in pairs(buckets) do
    count = count + 1
    latest = math.max(latest, b)
  end
  if count > 32 then
    -- Coarsened (KeyState.coarsen): every bucket's end rounded up to a multiple of 2, 4, 8 ...
    -- ms (never past the latest end), the first that leaves 32 buckets or fewer; buckets with
    -- the same end merge. A count observed before the last unit sent still holds the units sent
    -- well before it.
    local grain = 2
    while count > 32 do
      local merged = {}
      count = 0
      for b, u in pairs(buckets) do
        local e = math.min(latest, math.ceil(b / grain) * grain)
        if merged[e] == nil then
          count = count + 1
        end
        merged[e] = math.min(MAXU, (merged[e] or 0) + u)
      end
      buckets = merged
      grain = grain * 2
    end
    for _, field in ipairs(bucketFields) do
      redis.call('HDEL', KEYS[2], field)
    end
    for b, u in pairs(buckets) do
      redis.call('HSET', KEYS[2], 'e:' .. fmt(b), fmt(u) .. ':' .. fmt(b))
      wroteLeases(b)
    end
    leases = leases + count
  else
    if dirty then
      for b, u in pairs(buckets) do
        redis.call('HSET', KEYS[2], 'e:' .. fmt(b), fmt(u) .. ':' .. fmt(b))
        wroteLeases(b)
      end
    end
    leases = leases + count
  end
end

-- 3. Hold: at most a day ahead, as a server's Retry-After (SanityCaps).
local hold = nil
local holdText = shortString(KEYS[3], 'a hold')
if holdText ~= nil then
  hold = int(holdText, 0, MAXT)
  if hold == nil then
    redis.call('UNLINK', KEYS[3])
    warn(KEYS[3] .. ' was not a hold: ' .. excerpt(holdText) .. ': deleted')
  elseif hold > now + DAY + SKEW then
    warn(KEYS[3] .. ' held a hold ' .. fmt(hold - now) .. ' ms ahead, past a day: capped')
    hold = now + DAY
    redis.call('SET', KEYS[3], fmt(hold), 'PX', fmt(DAY))
  elseif hold > now + DAY then
    hold = now + DAY -- another instance's clock is ahead
    keepExpiry(KEYS[3], DAY)
  elseif hold <= now then
    if redis.call('PTTL', KEYS[3]) == -1 then
      redis.call('UNLINK', KEYS[3])
    end
    hold = nil
  else
    keepExpiry(KEYS[3], hold - now)
  end
end

-- 4. This instance's heartbeat; instances seen.
-- A heartbeat is at most a day: a deadline further ahead (and a minute of clock skew) is not one.
kind(KEYS[5], 'zset')
redis.call('ZREMRANGEBYSCORE', KEYS[5], '(' .. fmt(now + DAY + SKEW), '+inf')
-- GT: a deadline a refusal set further ahead (below) is not shortened by a later call.
redis.call('ZADD', KEYS[5], 'GT', fmt(now + heartbeat), instance)
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', fmt(now))
local function keepInstances()
  local last = redis.call('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES')
  local furthest = last[2] and tonumber(last[2]) or now
  redis.call('PEXPIRE', KEYS[5], fmt(math.max(heartbeat, furthest - now)))
end
keepInstances()
local instances = math.max(1, redis.call('ZCARD', KEYS[5]))

-- When an instance refused `units` now asks again, where the store can tell (FleetMemory.
-- askAgainAt), or nil: a window the store started itself whose probes go only as a server giving
-- the quota back evenly would have them back: when the quota per window has given back the
-- probes' units taken and these (at most `probeWait` after the window started; probes already
-- out: nil, their count comes within a round trip to the server); a count with a rate: when the
-- rate has given the units back (Refill.backAt), and after the turns already told, one refill of
-- the units per refused instance ('turn'), never further off than one refill per instance.
local function askAgainAt(c, units, taken, probeWait)
  if c.assumed then
    if c.whole or rate ~= nil or c.quota == nil or c.window == nil then
      return nil
    end
    local needed = taken + units
    local latest = c.observed + probeWait
    if needed > ASSUMED or now >= latest then
      return nil
    end
    local at = math.min(c.observed + math.ceil(needed * c.window / c.quota), latest)
    if at > now then
      return at
    end
    return nil
  end
  if rate == nil then
    return nil
  end
  local cap = math.max(c.remaining, c.quota or rate.units)
  local needed = math.min(MAXU, units + taken)
  if (isBucket(c) and units > cap) or (not isBucket(c) and needed > cap) then
    return nil
  end
  local missing = needed - c.remaining
  if missing <= 0 then
    return nil
  end
  local back = c.observed + math.min(math.ceil(missing * rate.period / rate.units), 366 * DAY)
  if back <= now then
    return nil
  end
  local refill = math.min(DAY, math.ceil(units * rate.period / rate.units))
  local at = back
  if c.turn ~= nil and c.turn > at then
    at = c.turn
  end
  local last = now + math.min(DAY, refill * instances)
  if at > last then
    at = math.max(back, last)
  end
  redis.call('HSET', KEYS[1], 'turn', fmt(at + refill))
  return at
end

-- 5. The operation.
local granted = 0
local validUntil = now
local probeEnds = nil
-- Units of a key without a count reported sent (their answer carried none) or given back: the
-- probe is over, and leases are lent in full from now on (nothing to wait for).
if (op == 'spent' or op == 'release') and c == nil and probe ~= nil and probe > now then
  probe = now
  redis.call('HSET', KEYS[2], 'p', '1:' .. fmt(now))
  wroteLeases(now)
end
if op == 'lease' then
  local id = ARGV[5]
  local min = int(ARGV[6], 1, MAXU)
  local max = int(ARGV[7], 1, MAXU)
  local bound = int(ARGV[8], 1, MAXU)
  local duration = int(ARGV[9], 1, DAY)
  local upper = math.max(min, math.min(max, bound))
  validUntil = now + duration
  if hold ~= nil then
    granted = 0
  elseif c == nil then
    -- First contact: the fleet's first requests would all reach the server before any count is
    -- here. While another instance is seen, one probe goes (the request at hand; field 'p' of
    -- the leases hash holds when it ends), and the others wait for its count, for its units to be
    -- reported without one (a server that gives no count: spent, release), or at most the
    -- probe's lease duration. Alone, an instance goes as it would without a store.
    if probe == nil then
      probe = now + duration
      redis.call('HSET', KEYS[2], 'p', '1:' .. fmt(probe))
      wroteLeases(probe)
      granted = instances > 1 and min or upper
    elseif instances > 1 and now < probe then
      granted = 0
      probeEnds = probe
    else
      granted = upper
    end
  else
    local cap = c.quota and math.max(c.remaining, c.quota)
    if isBucket(c) and credit(c, taken) > cap then
      -- A bucket full past its quota with every unit lent taken: moved to now, full. The units
      -- told sent before are in it; those told as sent at a later instant (requests committed
      -- to go later) too if the rate gives them back before the first of them goes, else they
      -- stay taken (FleetMemory.lease). Leases that ended by now go; an open lease stays taken:
      -- its units may still go, or come back.
      c = {remaining = cap, observed = now, quota = c.quota, window = c.window}
      saveCount(c)
      taken = 0
      if kind(KEYS[2], 'hash') == 'hash' then
        local all = redis.call('HGETALL', KEYS[2])
        local ahead, first = 0, nil
        for i = 1, #all, 2 do
          local u = int(string.match(all[i + 1], '^(%d+):') or '', 1, MAXU) or 0
          local v = int(string.match(all[i + 1], ':(%d+)$') or '', 0, MAXT) or 0
          if v > now and string.sub(all[i], 1, 2) == 'e:' then
            ahead = math.min(MAXU, ahead + u)
            first = (first == nil or v < first) and v or first
          end
        end
        local paid = first == nil
            or math.min(math.floor((first - now) * rate.units / rate.period), MAXU) >= ahead
        for i = 1, #all, 2 do
          local u = int(string.match(all[i + 1], '^(%d+):') or '', 1, MAXU) or 0
          local v = int(string.match(all[i + 1], ':(%d+)$') or '', 0, MAXT) or 0
          if v <= now or (paid and string.sub(all[i], 1, 2) == 'e:') then
            redis.call('HDEL', KEYS[2], all[i])
          else
            taken = math.min(MAXU, taken + u)
          end
        end
      end
    end
    local avail = available(c, taken, duration)
    if avail >= min then
      local share = math.floor(avail / instances)
      granted = math.min(avail, math.max(min, math.min(upper, share)))
    end
    if rate == nil and c.reset ~= nil and c.reset < validUntil then
      validUntil = c.reset
    end
  end
  if granted > 0 and leases >= MAXLEASES then
    granted = 0
    warn(KEYS[2] .. ' holds ' .. leases .. ' leases: refused')
  end
  if granted > 0 then
    redis.call('HSET', KEYS[2], id, fmt(granted) .. ':' .. fmt(validUntil))
    wroteLeases(validUntil)
    if c ~= nil then
      taken = math.min(MAXU, taken + granted)
    end
  elseif hold ~= nil then
    validUntil = hold
  elseif probeEnds ~= nil then
    validUntil = probeEnds
  elseif c ~= nil and not c.assumed and rate == nil and c.whole and c.remaining < min
      and c.window ~= nil and c.reset ~= nil and c.reset > now then
    -- Refused until the reset of a spent count of a window the server gives back whole (a
    -- sliding window's counter gives units back before it): the instance waits for it without
    -- a call; it is still in the fleet, and comes back then (FleetMemory.lease).
    validUntil = c.reset
    redis.call('ZADD', KEYS[5], 'GT', fmt(math.min(c.reset + heartbeat, now + DAY)), instance)
    keepInstances()
  else
    -- When the units come back, if the store can tell (askAgainAt); else now.
    validUntil = c ~= nil and askAgainAt(c, min, taken, duration) or now
  end
elseif op == 'release' then
  local id = ARGV[5]
  local unused = int(ARGV[6], 0, MAXU)
  local entry = redis.call('HGET', KEYS[2], id)
  if entry and unused ~= nil then
    local back = takeFromLease(id, entry, unused)
    if back ~= nil then
      if c ~= nil then
        taken = math.max(0, taken - back)
      end
    end
  end
elseif op == 'spent' then
  -- Units of a lease were sent, the last at ARGV[7]: they leave the lease; in the count already
  -- when it was observed at or after then, else kept in the bucket "e:<lastSentAt>".
  local id = ARGV[5]
  local units = int(ARGV[6], 0, MAXU)
  local at = int(ARGV[7], 0, MAXT)
  local entry = redis.call('HGET', KEYS[2], id)
  if entry and units ~= nil and at ~= nil and string.sub(id, 1, 2) ~= 'e:' then
    local sent = takeFromLease(id, entry, units)
    if sent ~= nil then
      if c ~= nil and at <= c.observed then
        taken = math.max(0, taken - sent)
      elseif sent > 0 then
        addSent(sent, at)
      end
    end
  end
elseif op == 'hold' then
  local untilMs = int(ARGV[5], 0, MAXT)
  if untilMs ~= nil then
    untilMs = math.min(untilMs, now + DAY)
    if untilMs > now and (hold == nil or untilMs > hold) then
      redis.call('SET', KEYS[3], fmt(untilMs), 'PX', fmt(untilMs - now))
      hold = untilMs
    end
  end
elseif op == 'lift' then
  -- A request sent during the hold ending at ARGV[5] was admitted: that hold is over (another
  -- one, a later refusal's, stays).
  local untilMs = int(ARGV[5], 0, MAXT)
  if untilMs ~= nil and hold ~= nil and math.abs(hold - untilMs) <= 1000 then
    redis.call('UNLINK', KEYS[3])
    hold = nil
  end
elseif op == 'rate' then
  local u = int(ARGV[5], 1, MAXU)
  local p = int(ARGV[6], 1, MAXWIN)
  local l = int(ARGV[7], 0, MAXT)
  if u ~= nil and p ~= nil and l ~= nil and l + DAY > now and l <= now + SKEW
      and (rate == nil or rate.learned <= l) then
    redis.call('SET', KEYS[4], fmt(u) .. ':' .. fmt(p) .. ':' .. fmt(l), 'PX', fmt(l + DAY - now))
    rate = {units = u, period = p, learned = l}
  end
end

-- 6. The leases hash's expiry, if this run wrote it (or saved the count): a minute after the
-- latest lease or bucket written ends, at least the count's, never shorter than it was. Found
-- without one (another client's), a minute or the count's.
if redis.call('EXISTS', KEYS[2]) == 1 then
  local keep = 60000
  if leasesUntil > 0 then
    keep = leasesUntil - now + 60000
  end
  if c ~= nil then
    keep = math.max(keep, countTtl(c))
  end
  keep = math.max(1, math.min(keep, MAXWIN + 2 * DAY))
  if leasesWritten then
    redis.call('PEXPIRE', KEYS[2], fmt(math.max(keep, redis.call('PTTL', KEYS[2]))))
  else
    keepExpiry(KEYS[2], keep)
  end
end

local reply = {'1', '', '', '', '', '', fmt(taken), fmt(hold), '', '', '', fmt(instances),
  fmt(granted), fmt(validUntil), table.concat(warnings, '; ')}
if c ~= nil then
  reply[2] = fmt(c.remaining)
  reply[3] = fmt(c.observed)
  reply[4] = fmt(c.reset)
  reply[5] = fmt(c.quota)
  reply[6] = fmt(c.window)
end
if rate ~= nil then
  reply[9] = fmt(rate.units)
  reply[10] = fmt(rate.period)
  reply[11] = fmt(rate.learned)
end
return reply
