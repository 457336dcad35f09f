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
-- The version is the sum of 8 counters per course. A transaction raises one of them (chosen by
-- its transaction id), so submissions that commit at the same time in a 2,000-student course
-- do not all wait for one row lock; courses are locked in id order (no deadlock between two
-- writers of several courses). A course being deleted gets no counter rows (its rows go with it
-- by cascade, and nothing can read its overview any more).

create table gradebook_versions (
  course_id uuid not null references courses (id) on delete cascade,
  shard     smallint not null,
  version   bigint not null,
  primary key (course_id, shard)
);

create function gradebook_versions_raise(p_courses uuid[]) returns void
language plpgsql as $$
declare
  c uuid;
  s smallint := (txid_current() % 8)::smallint;
begin
  for c in select distinct x from unnest(p_courses) as x where x is not null order by x loop
    insert into gradebook_versions as v (course_id, shard, version)
    select c, s, 1
     where exists (select 1 from courses k where k.id = c)
    on conflict (course_id, shard) do update set version = v.version + 1;
  end loop;
end
$$;

create function gradebook_versions_after_insert() returns trigger
language plpgsql as $$
begin
  perform gradebook_versions_raise(array(select distinct n.course_id from new_rows n));
  return null;
end
$$;

create function gradebook_versions_after_update() returns trigger
language plpgsql as $$
begin
  perform gradebook_versions_raise(array(select n.course_id from new_rows n union select o.course_id from old_rows o));
  return null;
end
$$;

create function gradebook_versions_after_delete() returns trigger
language plpgsql as $$
begin
  perform gradebook_versions_raise(array(select distinct o.course_id from old_rows o));
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
                      for each statement execute function gradebook_versions_after_insert()', t || '_gradebook_ins', t);
    execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows
                      for each statement execute function gradebook_versions_after_update()', t || '_gradebook_upd', t);
    execute format('create trigger %I after delete on %I referencing old table as old_rows
                      for each statement execute function gradebook_versions_after_delete()', t || '_gradebook_del', t);
  end loop;
end
$$;
