"""`make bench-live`: live tables under load, next to a bare echo consumer.

Starts the production stack as real processes on this machine — daphne, a Celery worker
and Celery beat, on PostgreSQL and Redis, DEBUG off — in a database of its own (created
and dropped here) and a Redis database number of its own (flushed here, and only that
one). Creates players in bulk, signs each in once through the real login form, seats
them four to a table (`banker36` and `blackjack` alternating, every seat a person) and
plays the tables from one asyncio load generator over real WebSockets, as
docs/protocol.md says a client must: the session cookie and the site's Origin on the
handshake, a client seed for every announced game, a legal action from
`game.view.actions` sent with the table version it was decided on 0.5–2 s after the
player's turn came (× the pace), a snapshot asked for whenever a version is missing. A
few turns (`--miss`) are left to the clock, so that beat plays timeouts, whose lateness is
read back from the database: each `timeout` GameEvent's `created_at` against the deadline
the clients were shown for that decision.

Then, on the same daphne and Redis layer, with the same players' sessions, the same
number of sockets and the same message rate, a bare echo consumer (consumer.py)
broadcasts each message to a group of 4 sockets, as a table's change goes to its 4 seats.
Its latencies are the baseline.

Steps: 100 / 400 / 1,000 connected players; then the saturation point — the highest
action rate whose p99 stays under 250 ms — searched on the 400-player tables by
shortening the think time (or lengthening it, when pace 1 is already over the limit), and
the echo's own saturation point on the same sockets (its rate doubled until p99 crosses
250 ms or over 1 % of its frames are lost, then once between).
Every figure is a median of runs (back-to-back windows on the same connected tables).
The machine is shared: the load average, the machine's CPU and the load generator's own
CPU (it runs on the same cores as what it measures) are printed with the figures.

The targets for live play against the echo, each printed with its verdict: daphne's CPU
per accepted action (its CPU-seconds in the runs ÷ acked actions) ≤ 2× the echo's per
broadcast, at the 400-player step; the live saturation point ≥ 50 % of the echo's; at
the 1,000-player step p99 ≤ 3× the echo's, every table dealt, timeouts applied within
0.5 s of their deadlines at p99, no error codes but the players' own mistakes, every
client converged. Ratios rather than absolute figures, because the machine is shared
and its speed varies from run to run: the echo, measured in the same run on the same
processes, is the yardstick.

The live stack runs on the channel layer its settings give (CHANNEL_LAYER, read back from
them, nothing set for it); then a stack started with CHANNEL_LAYER set to the other layer
runs the echo alone, at the same rates on the same sessions (--layers live skips it), for
an "echo by layer" table. Right after each stack starts, before any table exists, every
process's CPU is measured for --idle seconds ("Idle: …"). --profile samples daphne with
py-spy (raw collapsed stacks in the logs folder) during one more run of the 400-player step
(--profile-players) and prints its CPU per accepted action by category.

    python -m benchmarks.live [--quick] [--steps 100,400,1000] [--runs 3] [--duration 10]
        [--profile] [--layers both|live] [--idle 10] [--json FILE]

What is not production here (settings.py): the echo route is mounted, passwords use a
cheap hasher (sign-in speed only) and static files are not hashed. The tables, seats and
users are created through the ORM (setup, not measured); every game is started, seeded
and played over the sockets.

The modules, from the bottom up: options (the command line), usage (/proc), stack (the
processes, the database and Redis), figures (percentiles, medians), sockets (the
handshake), profile (py-spy's samples), load (the players), echo (the baseline), steps
(a step: live, then echo), report (tables, verdicts, JSON), __main__ (the run).
"""
