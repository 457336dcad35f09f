-- The course roster in name order, read from one index: the learning and grade overviews.
--
-- Both overviews list a course's students by name (lower(display_name), lower(username), id)
-- and can be paged. The names lived only in `users`, so every request joined all the course's
-- members to `users` (for the 2,000-student course the planner hashed all 20,200 users) and
-- sorted them before the limit: a page of 200 cost as much as the whole list
-- (bench/RESULTS.md, issue 15). A copy of the two names on each membership, kept in step with
-- `users` by triggers, lets one index return the roster already in order, so a page reads its
-- own rows (plus the offset's index entries) and no query touches `users`.

alter table course_members add column display_name text, add column username text;

update course_members m
   set display_name = u.display_name, username = u.username
  from users u
 where u.id = m.user_id;

-- A new membership takes the names from its user, whatever inserted it. An unknown user gets
-- empty names so that the foreign key, not the not-null check, refuses the row (23503, as before).
create function course_members_copy_names() returns trigger
language plpgsql as $$
begin
  select u.display_name, u.username into new.display_name, new.username from users u where u.id = new.user_id;
  if not found then
    new.display_name := '';
    new.username := '';
  end if;
  return new;
end
$$;

create trigger course_members_names_ins before insert on course_members
  for each row execute function course_members_copy_names();

-- A renamed user is renamed in every course (a student is in a handful of them).
create function users_names_to_members() returns trigger
language plpgsql as $$
begin
  update course_members m
     set display_name = new.display_name, username = new.username
   where m.user_id = new.id;
  return null;
end
$$;

create trigger users_names_upd after update of display_name, username on users
  for each row
  when (old.display_name is distinct from new.display_name or old.username is distinct from new.username)
  execute function users_names_to_members();

-- After the backfill and the insert trigger: every row has its names (a dangling user_id
-- cannot exist, the foreign key forbids it).
alter table course_members alter column display_name set not null, alter column username set not null;

create index course_members_roster_idx
    on course_members (course_id, lower(display_name), lower(username), user_id)
       include (display_name, username);

-- Autovacuum may be off (it is on the benchmark server): plan with the new columns' statistics.
analyze course_members;
