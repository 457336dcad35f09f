-- Per-user notification counters (issue 11.7): total, unread, unread homework reminders.
--
-- GET /notifications, the homework centre's red dot and the live stream read one row instead of
-- counting a user's whole inbox on every request. Kept by statement-level triggers with
-- transition tables (like sql/007), in the transaction that writes the notifications, whatever
-- wrote them (routes, the reminder scan, cascades, bulk loads). Deltas: one upsert per statement
-- and user, in user order (concurrent fan-outs lock the rows in the same order).

create table notification_counters (
  user_id          uuid primary key references users (id) on delete cascade,
  total            int not null default 0,
  unread           int not null default 0,
  unread_reminders int not null default 0
);

create function notification_counters_apply(p_users uuid[], p_total int[], p_unread int[], p_reminders int[]) returns void
language plpgsql as $$
begin
  insert into notification_counters as c (user_id, total, unread, unread_reminders)
  select d.u, d.t, d.r, d.m
    from unnest(p_users, p_total, p_unread, p_reminders) as d (u, t, r, m)
   where (d.t, d.r, d.m) <> (0, 0, 0)
     and exists (select 1 from users x where x.id = d.u)
   order by d.u
  on conflict (user_id) do update
     set total = c.total + excluded.total,
         unread = c.unread + excluded.unread,
         unread_reminders = c.unread_reminders + excluded.unread_reminders;
end
$$;

create function notification_counters_after_insert() returns trigger
language plpgsql as $$
begin
  perform notification_counters_apply(array_agg(d.user_id), array_agg(d.t), array_agg(d.r), array_agg(d.m))
     from (select user_id, count(*)::int as t,
                  (count(*) filter (where read_at is null))::int as r,
                  (count(*) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER'))::int as m
             from changed group by user_id) d
   having count(*) > 0;
  return null;
end
$$;

create function notification_counters_after_delete() returns trigger
language plpgsql as $$
begin
  perform notification_counters_apply(array_agg(d.user_id), array_agg(d.t), array_agg(d.r), array_agg(d.m))
     from (select user_id, -count(*)::int as t,
                  -(count(*) filter (where read_at is null))::int as r,
                  -(count(*) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER'))::int as m
             from changed group by user_id) d
   having count(*) > 0;
  return null;
end
$$;

-- New rows count in, old rows count out, per user: right for any column that changed.
create function notification_counters_after_update() returns trigger
language plpgsql as $$
begin
  perform notification_counters_apply(array_agg(d.user_id), array_agg(d.t), array_agg(d.r), array_agg(d.m))
     from (select user_id, sum(s)::int as t,
                  coalesce(sum(s) filter (where read_at is null), 0)::int as r,
                  coalesce(sum(s) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER'), 0)::int as m
             from (select user_id, read_at, notification_type, 1 as s from new_rows
                   union all
                   select user_id, read_at, notification_type, -1 from old_rows) x
            group by user_id) d
   having count(*) > 0;
  return null;
end
$$;

create trigger notifications_counters_ins after insert on notifications
  referencing new table as changed for each statement execute function notification_counters_after_insert();
create trigger notifications_counters_del after delete on notifications
  referencing old table as changed for each statement execute function notification_counters_after_delete();
create trigger notifications_counters_upd after update on notifications
  referencing old table as old_rows new table as new_rows for each statement execute function notification_counters_after_update();

-- What is already there.
insert into notification_counters (user_id, total, unread, unread_reminders)
select user_id, count(*)::int,
       (count(*) filter (where read_at is null))::int,
       (count(*) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER'))::int
  from notifications
 group by user_id;

-- The unread-only inbox page, newest first, keyed like notifications_user_idx.
create index if not exists notifications_user_unread_idx
  on notifications (user_id, delivered_at desc, id desc) where read_at is null;
