/**
 * The V8 heap settings of the live TUI (issue #26), set once before the store is read.
 */
import v8 from 'node:v8';

/**
 * Ink rebuilds every cell of the frame on each render (several MB of short-lived objects per frame
 * on a 140×40 screen). With V8's default heap growth (up to 4× per step) that garbage is promoted
 * and a session following a busy agent settles near 400 MB. Growing the heap by 30 % per step
 * keeps it near its live set for a few percent more GC time (15 % now: see the last paragraph).
 * (--optimize-for-size did as well on memory but nearly doubled CPU and latency.) (Where this is
 * set, before the first read or after the first frame, made no difference we could measure to the
 * start-up time or to the memory of a 10-minute follow.)
 *
 * The young generation: under that allocation rate V8 doubles the semi-spaces up to their maximum
 * (32 MB each here, 67 MB of new space), and the old generation's limit is raised by the new
 * space's capacity, so the committed heap sat near 190 MB for a live set of ~51 MB (--trace-gc,
 * 1M-message bench store, 200 commits/s): RSS 280–290 MB after 40 s of following. The semi-space
 * maximum cannot be changed once the heap exists (--max-semi-space-size here is ignored), but the
 * growth factor is read at each resize: at 1 the new space stays at its start size (1 MB per
 * semi-space). Measured on the same store and writer: RSS ~170 MB, flat, after 60 s of following
 * (committed heap ~75 MB; Mark-Compacts 16 a minute instead of 7). Bench `tui`, 120 s of following,
 * two rounds (before/after alternated) on a loaded machine: peak RSS 286/287 -> 179/175 MB, trend
 * over the second half +2.4/+11.0 -> -1.7/-0.4 MB/min, CPU following 54.7/58.3 -> 54.3/50.7 % of
 * one core, commit-to-screen p95 165/231 -> 330/114 ms, first frame 628/639 -> 893/670 ms: the
 * memory falls by ~110 MB, the rest stays within the noise of the load.
 * (That growth factor is now set by the bin, before the bundle loads (cli/bin.ts keepYoungGenerationSmall): set
 * here, after the load had grown the semi-spaces, it held the new space at 8.4 MB instead of 2.1.)
 *
 * The growth step, 30 % -> 15 % (issue #26, RSS ≤ 150 MB): the old generation's limit is the live heap after a
 * mark-compact times 1 + the step, and the follower's live heap is ~45-50 MB. Three builds following the same 200
 * commits/s writer at once on the 1M-message bench store (RSS every 5 s, 90 s; CPU of each over the same window):
 * 30 % median 154 MB, peak 164, CPU 25.4 % of one core; 15 % median 148, peak 154, CPU 24.4 %; 10 % median 149.5,
 * peak 156, CPU 25.0 % (a second round, 120 s, 30/15/20 %: medians 153/148/149, peaks 161/154/156). 15 % takes
 * ~6-10 MB off for no CPU we could measure; 10 % takes no more.
 *
 * What is left above the heap, and what does not help from here (issue #26, s38; 1M-message bench store, 200 commits/s,
 * /proc/PID/smaps after 90 s of following, two builds following at once unless said): RSS ~145-150 MB = 58 MB
 * file-backed (the node binary's code and data) + ~50 MB of V8 pages (live heap ~46 MB, new space 8 MB) + ~12 MB main
 * malloc heap (SQLite) + 14-17 MB in glibc's per-thread arenas, the part that grows (10 MB at 30 s). Those arenas are
 * TurboFan's background compile jobs (20-50 optimised functions every 10 s, still 10-20 after a minute): started with
 * --no-concurrent-recompilation they held 2.1 MB and RSS was 136 MB (median; the unchanged build 140-150 MB in the
 * other rounds; CPU 27.7 %, theirs 25-34 %); MALLOC_ARENA_MAX=2 took ~5 MB (134.8 against 140.0, at once). Both act
 * only at process start: set here the flag changed nothing (17.3 MB of arenas, the compile dispatcher exists from the
 * isolate's start). A memory-reducing GC after the first analysis ("last-resort", via a `gc` from --expose-gc) took the
 * new space from 8 to 2 MB and heapTotal ~4 MB lower but not the RSS (145.1 against 145.9 MB) and blocked the event
 * loop 113-302 ms: not kept.
 *
 * No Maglev (issue #26, s40): V8's middle tier compiles on the same worker threads, into the same per-thread arenas,
 * and re-compiled what each mark-compact dropped (source/store/read/read-snapshot.ts rowMapper). Builds following the
 * same 200 commits/s writer at once on the 1M-message bench store, 120 s, RSS every 5 s, loaded machine: main median
 * 151.8 MB peak 154.3, CPU 23.9 % of one core; without it 153.5 / 154.7, 25.2 %; started with --no-maglev 145.8 /
 * 146.8, 24.8 %. Then set here (after start, it acts on every later tiering decision), against main at once: 140.8 /
 * 142.3 MB and 0.2 MB/min against 155.4 / 157.6 MB, CPU 25.4 % against 24.5 % (V8 workers 4.4 against 4.1 %:
 * TurboFan takes some of what Maglev did); again, started in the other order: 140.3 / 143.4 MB against 153.5 / 154.8,
 * CPU 26.0 % against 24.4 %. ~13 MB less RSS, flat, for ~1-1.5 % of one core more (code waits longer in Sparkplug).
 */
export function tuneHeapForFollowing(): void {
	v8.setFlagsFromString('--heap-growing-percent=15');
}

/**
 * Maglev left out once the first analysis is on screen, not from the start: the start-up's code (the first read, the
 * first analysis, the first frames) runs once and warms up in Maglev; without it that code waited in Sparkplug: the
 * bench's first frame went 360 -> 424 ms and its findings 986 -> 1,117 ms (idle runs before and after). Five starts
 * each, interleaved, 140x40 tmux, HFX_TRACE_STARTUP (first frame / store read and analysed, medians): the flag at start
 * 431 / 1,121 ms, set here 367 / 1,067 ms; again against the head before the flag (4bfbea5): 340 / 966 against this
 * 328 / 965 ms.
 */
export function leaveOutMaglev(): void {
	v8.setFlagsFromString('--no-maglev');
}
