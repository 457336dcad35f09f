-- Login throttling that holds when attempts arrive together: an attempt is counted before
-- its password is checked. One call reserves the attempt in every scope (per identifier and
-- address, per account, per address) or in none, and returns the counts it decided on.
--
-- The rows are created (or their passed window restarted) and locked in key order by one
-- insert; only when every scope is below its limit are all of them incremented. Concurrent
-- calls on the same keys run one after the other on the row locks, so no more than the limit
-- is ever let through, on one instance or many.
create function reserve_login_attempt(p_keys text[], p_limits integer[], p_now timestamptz, p_window_seconds integer)
returns table (throttle_key text, attempts integer, started_at timestamptz, allowed boolean)
language plpgsql as $$
declare
  v_window_start timestamptz := p_now - make_interval(secs => p_window_seconds);
  v_allowed boolean;
begin
  insert into login_throttle as t (key, window_started_at, failures)
  select k, p_now, 0 from unnest(p_keys) as k order by k
  on conflict (key) do update set
    failures = case when t.window_started_at <= v_window_start then 0 else t.failures end,
    window_started_at = case when t.window_started_at <= v_window_start then p_now else t.window_started_at end;

  select coalesce(bool_and(t.failures < l.lim), true) into v_allowed
    from login_throttle t
    join unnest(p_keys, p_limits) as l (k, lim) on l.k = t.key;

  if v_allowed then
    update login_throttle t set failures = t.failures + 1 where t.key = any (p_keys);
  end if;

  return query
    select t.key, t.failures, t.window_started_at, v_allowed
      from login_throttle t
     where t.key = any (p_keys);
end
$$;
