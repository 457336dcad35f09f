-- Hot paths whose cost must not grow with history (issue 11.7, found by the 10-minute soak).
--
-- 1. notifications_unread_idx (user_id, notification_type) where read_at is null served the old
--    per-request unread counts; sql/012's counters replaced them and notifications_user_unread_idx
--    serves the unread page and "mark all read". It only cost a write per notification.
drop index if exists notifications_unread_idx;

-- 2. The announcement list's total: one keyed row per course instead of count(*) over every
--    announcement the course ever had. Kept by statement-level triggers with transition tables,
--    in the transaction that writes the announcements (like sql/007 and sql/012).
create table course_counters (
  course_id     uuid primary key references courses (id) on delete cascade,
  announcements int not null default 0
);

create function course_counters_apply(p_courses uuid[], p_announcements int[]) returns void
language plpgsql as $$
begin
  insert into course_counters as c (course_id, announcements)
  select d.c, d.n
    from unnest(p_courses, p_announcements) as d (c, n)
   where d.n <> 0
     -- A course being deleted (its announcements go with it by cascade) keeps no counter row.
     and exists (select 1 from courses x where x.id = d.c)
   order by d.c
  on conflict (course_id) do update
     set announcements = c.announcements + excluded.announcements;
end
$$;

create function course_counters_after_insert() returns trigger
language plpgsql as $$
begin
  perform course_counters_apply(array_agg(d.course_id), array_agg(d.n))
     from (select course_id, count(*)::int as n from changed group by course_id) d
   having count(*) > 0;
  return null;
end
$$;

create function course_counters_after_delete() returns trigger
language plpgsql as $$
begin
  perform course_counters_apply(array_agg(d.course_id), array_agg(d.n))
     from (select course_id, -count(*)::int as n from changed group by course_id) d
   having count(*) > 0;
  return null;
end
$$;

-- No update trigger: an announcement never moves to another course (no route changes
-- course_id), so edits leave the counts alone.
create trigger announcements_counters_ins after insert on announcements
  referencing new table as changed for each statement execute function course_counters_after_insert();
create trigger announcements_counters_del after delete on announcements
  referencing old table as changed for each statement execute function course_counters_after_delete();

-- What is already there.
insert into course_counters (course_id, announcements)
select course_id, count(*)::int from announcements group by course_id;
