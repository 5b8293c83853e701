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
 *
 * The growth step, 30 % -> 15 % (issue #26, RSS ≤ 150 MB): the old generation's limit is the live heap after a
 * mark-compact times 1 + the step, and the follower's live heap is ~45-50 MB. Three builds following the same 200
 * commits/s writer at once on the 1M-message bench store (RSS every 5 s, 90 s; CPU of each over the same window):
 * 30 % median 154 MB, peak 164, CPU 25.4 % of one core; 15 % median 148, peak 154, CPU 24.4 %; 10 % median 149.5,
 * peak 156, CPU 25.0 % (a second round, 120 s, 30/15/20 %: medians 153/148/149, peaks 161/154/156). 15 % takes
 * ~6-10 MB off for no CPU we could measure; 10 % takes no more.
 */
export function tuneHeapForFollowing(): void {
	v8.setFlagsFromString('--heap-growing-percent=15');
	v8.setFlagsFromString('--semi-space-growth-factor=1');
}
