-- A version per course's gradebook (issue 15): the grade overview of a course is served from a
-- cache as long as nothing it is built from has changed, on any instance.
--
-- The overview (src/modules/grades/service.ts) reads only rows of its course in these tables:
-- course_members (roster and names, copied there by sql/028), grade_totals (counts, average,
-- task scores), experiments and experiment_submissions (the newest submission per experiment),
-- learning_tasks, knowledge_points and learning_units (the columns, in course order). Every
-- statement that inserts, updates or deletes rows of a course in one of them raises the
-- course's version in the same transaction, so a reader that sees the version in its snapshot
-- sees exactly the data of that version: two snapshots with the same version read the same
-- gradebook.
--
-- The version is the sum of 16 counters per course, made with the course. A transaction raises
-- one that no other transaction holds (FOR UPDATE SKIP LOCKED): a homework created in a
-- 2,000-student course (its 6,000 reminder events are written after the task) does not hold up
-- the submissions, grades or other homework of that course until it commits. Only a 17th writer
-- at the same moment waits. Courses are taken in id order. A course being deleted gets no
-- counter (its rows go with it by cascade, and nothing can read its overview any more).

create table gradebook_versions (
  course_id uuid not null references courses (id) on delete cascade,
  shard     smallint not null,
  version   bigint not null,
  primary key (course_id, shard)
);

create function gradebook_versions_of_new_courses() returns trigger
language plpgsql as $$
begin
  insert into gradebook_versions (course_id, shard, version)
  select n.id, s, 0 from new_rows n cross join generate_series(0, 15) as s
  on conflict do nothing;
  return null;
end
$$;

create trigger courses_gradebook_versions after insert on courses
  referencing new table as new_rows for each statement execute function gradebook_versions_of_new_courses();

insert into gradebook_versions (course_id, shard, version)
select c.id, s, 0 from courses c cross join generate_series(0, 15) as s;

create function gradebook_versions_raise(p_courses uuid[]) returns void
language plpgsql as $$
declare
  c uuid;
  taken smallint;
begin
  for c in select distinct x from unnest(p_courses) as x where x is not null order by x loop
    -- A counter nobody else holds (one this transaction holds already is free to it).
    select g.shard into taken from gradebook_versions g
     where g.course_id = c order by g.shard limit 1 for update skip locked;
    if found then
      update gradebook_versions set version = version + 1 where course_id = c and shard = taken;
    else
      -- All 16 held by other writers (or the course has none): wait for one.
      insert into gradebook_versions as v (course_id, shard, version)
      select c, (txid_current() % 16)::smallint, 1
       where exists (select 1 from courses k where k.id = c)
      on conflict (course_id, shard) do update set version = v.version + 1;
    end if;
  end loop;
end
$$;

-- One function for the three statement triggers of each table; a branch only reads the
-- transition tables its trigger declares.
create function gradebook_versions_after_write() returns trigger
language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform gradebook_versions_raise(array(select n.course_id from new_rows n));
  elsif tg_op = 'DELETE' then
    perform gradebook_versions_raise(array(select o.course_id from old_rows o));
  else
    perform gradebook_versions_raise(array(select n.course_id from new_rows n union all select o.course_id from old_rows o));
  end if;
  return null;
end
$$;

do $$
declare
  t text;
begin
  foreach t in array array['course_members', 'grade_totals', 'experiments', 'experiment_submissions',
                           'learning_tasks', 'knowledge_points', 'learning_units'] loop
    execute format('create trigger %I after insert on %I referencing new table as new_rows
                      for each statement execute function gradebook_versions_after_write()', t || '_gradebook_ins', t);
    execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows
                      for each statement execute function gradebook_versions_after_write()', t || '_gradebook_upd', t);
    execute format('create trigger %I after delete on %I referencing old table as old_rows
                      for each statement execute function gradebook_versions_after_write()', t || '_gradebook_del', t);
  end loop;
end
$$;
