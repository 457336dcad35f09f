-- The live stream's per-user cap across instances: every open stream holds a lease row. A
-- connect reserves one (reserve_stream_lease) or is refused; the instance renews the leases of
-- its open streams every heartbeat and deletes a stream's lease when it closes. A process that
-- dies stops renewing: its leases lapse at expires_at and the next reservation of that user
-- removes them, so a crash frees its slots after the lease time without anyone cleaning up.
create table stream_leases (
  id          uuid primary key,
  user_id     uuid not null references users (id) on delete cascade,
  instance_id uuid not null,
  expires_at  timestamptz not null
);
create index stream_leases_user_idx on stream_leases (user_id);
create index stream_leases_instance_idx on stream_leases (instance_id);

-- Reserves a lease for p_user when fewer than p_max unexpired leases exist. Connects of one user
-- run one after the other on a transaction advisory lock keyed by the user (released at commit,
-- after the row is visible to the next holder's statements), so a burst of parallel connects on
-- any number of instances lets exactly p_max through. Connects of different users never wait.
create function reserve_stream_lease(p_id uuid, p_user uuid, p_instance uuid, p_now timestamptz, p_expires timestamptz, p_max integer)
returns boolean
language plpgsql as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('stream_leases:' || p_user::text, 0));
  delete from stream_leases where user_id = p_user and expires_at <= p_now;
  if (select count(*) from stream_leases where user_id = p_user) >= p_max then
    return false;
  end if;
  insert into stream_leases (id, user_id, instance_id, expires_at) values (p_id, p_user, p_instance, p_expires);
  return true;
end
$$;
