-- 003_member_course_reads: what the member's course reads need to stay cheap with large curricula.
--
-- curriculum_version counts the changes to a course's sections and lectures. Every store write
-- that adds, changes or removes one bumps it in the same transaction, and each server process
-- keeps curricula in memory only for as long as the version it read them at is still the one in
-- this column (docs/architecture.md, "Curriculum cache"). An edit made outside the store (plain
-- SQL) must bump it too:
--   UPDATE courses SET curriculum_version = curriculum_version + 1 WHERE id = ...;
ALTER TABLE courses ADD COLUMN curriculum_version BIGINT NOT NULL DEFAULT 0;

-- A member's progress summed up per course (counts by state, the latest update) is read from
-- this index alone, without visiting the rows. It serves everything the old one did, which it
-- extends, so that one goes.
DROP INDEX lecture_progress_member_idx;
CREATE INDEX lecture_progress_member_idx ON lecture_progress (school_id, member_id, course_id, state, updated_at);
