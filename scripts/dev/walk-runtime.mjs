/**
 * The walk's runtime (scripts/dev/walk.mjs): the wrappers every instrumented module of dist/ calls at its end, and
 * the log of calls that cross from one room to another. The room the code runs in is carried by an AsyncLocalStorage,
 * so it holds across awaits; a call whose callee lives in the caller's room is not logged. A function handed across
 * (an argument, or a function-valued property of a plain object argument) runs in the room that handed it down
 * unless it was wrapped where it was defined. Only the walked process (dist/cli/main.js) writes the log, at exit.
 */
import {AsyncLocalStorage} from 'node:async_hooks';
import fs from 'node:fs';

const room = new AsyncLocalStorage();
const WRAPPED = Symbol('walk-wrapped');
const wrappers = new WeakMap();
const events = [];
const walked = process.argv[1]?.endsWith('/dist/cli/main.js') && process.env.HFX_WALK_OUT;

if (walked) {
	process.on('exit', () => fs.writeFileSync(process.env.HFX_WALK_OUT, `${JSON.stringify(events)}\n`));
}

/** Functions the caller hands across: they run in the caller's room (unless wrapped where defined). */
function handDown(from, args) {
	for (const [i, a] of args.entries()) {
		if (typeof a === 'function') {
			args[i] = fn(from, '(handed)', `(argument ${i})`, a);
		} else if (a && typeof a === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(a))) {
			for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(a))) {
				if (typeof d.value === 'function' && !d.value[WRAPPED] && d.writable) {
					a[key] = fn(from, '(handed)', key, d.value);
				}
			}
		}
	}
}

function settle(result, back) {
	if (result instanceof Promise) {
		return result.then(
			v => {
				back();
				return v;
			},
			e => {
				back();
				throw e;
			},
		);
	}

	back();
	return result;
}

/** `f` as defined in `where` (a room) and `file`: a call into it from another room is logged, and its return. */
export function fn(where, file, name, f) {
	if (typeof f !== 'function' || f[WRAPPED]) {
		return f;
	}

	if (wrappers.has(f)) {
		return wrappers.get(f);
	}

	const wrapped = function (...args) {
		const call = () => (new.target ? Reflect.construct(f, args, new.target) : f.apply(this, args));
		const from = room.getStore() ?? '(entry)';
		if (from === where) {
			return call();
		}

		events.push(['call', from, where, `${file}:${name}`]);
		handDown(from, args);
		const back = () => events.push(['return', where, from, `${file}:${name}`]);
		let result;
		try {
			result = room.run(where, call);
		} catch (error) {
			back();
			throw error;
		}

		return settle(result, back);
	};
	Object.defineProperty(wrapped, 'name', {value: f.name});
	Object.defineProperty(wrapped, 'length', {value: f.length});
	wrapped.prototype = f.prototype;
	wrapped[WRAPPED] = true;
	wrappers.set(f, wrapped);
	return wrapped;
}

/** A class's own methods (prototype and static), wrapped in place: the class keeps its identity. */
export function cls(where, file, name, c) {
	for (const [target, prefix] of [
		[c.prototype, `${name}#`],
		[c, `${name}.`],
	]) {
		for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(target ?? {}))) {
			if (key !== 'constructor' && typeof d.value === 'function' && d.writable) {
				target[key] = fn(where, file, `${prefix}${key}`, d.value);
			}
		}
	}

	return c;
}

/** A plain object's function-valued properties, wrapped in place (a table of handlers, an Io). */
export function obj(where, file, name, o) {
	if (
		o &&
		typeof o === 'object' &&
		!Object.isFrozen(o) &&
		[Object.prototype, null].includes(Object.getPrototypeOf(o))
	) {
		for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(o))) {
			if (typeof d.value === 'function' && d.writable) {
				o[key] = fn(where, file, `${name}.${key}`, d.value);
			}
		}
	}

	return o;
}
