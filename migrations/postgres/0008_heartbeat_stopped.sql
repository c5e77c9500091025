-- A clean stop is recorded in the process's heartbeat row, so that `health` fails at once after `docker stop`
-- instead of answering healthy until the last beat is 60 s old. The next beat of a restarted process clears it.

ALTER TABLE heartbeats ADD COLUMN stopped_at DOUBLE PRECISION;
