/**
 * What the bundle (scripts/bundle.mjs) changes in Ink's stack. Plain ESM run by Node at build
 * time, not compiled by tsc: bundle.d.mts types it. The esbuild plugins rewrite modules of Ink's
 * dependency tree while they are bundled, each checking the shape it expects so that an upgrade
 * fails the build instead of bundling unchanged. Upgrading Ink: README.md in this folder.
 */
import fs from 'node:fs';
import path from 'node:path';

// Ink imports its DevTools bridge (react-devtools-core, and ws through a window polyfill) only
// when DEV=true: not shipped, so not bundled.
const noDevtools = {
	name: 'no-react-devtools',
	setup(b) {
		b.onLoad({filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]devtools\.js$/}, () => ({
			contents: 'export {};',
			loader: 'js',
		}));
	},
};

// hfx always runs React's production build (cli.tsx sets NODE_ENV before React loads), so the
// development builds (~650 kB of react-reconciler, react and scheduler) need not be parsed at
// every start: their entry points pick the production file unconditionally here.
const reactProduction = {
	name: 'react-production-only',
	setup(b) {
		b.onLoad({filter: /[\\/]node_modules[\\/](react|react-reconciler|scheduler)[\\/][\w-]+\.js$/}, async args => {
			const text = await fs.promises.readFile(args.path, 'utf8');
			const test = "process.env.NODE_ENV === 'production'";
			return {contents: text.includes(test) ? text.replaceAll(test, 'true') : text, loader: 'js'};
		});
	},
};

// yoga-layout (Ink's layout engine) ships its WebAssembly inline as a data: URI, and its
// Emscripten loader fetch()es that URI whenever a global fetch exists: Node then loads undici and
// decodes the URI through it (~25 ms of every start). Without fetch it decodes the base64 itself.
const yogaWithoutFetch = {
	name: 'yoga-without-fetch',
	setup(b) {
		b.onLoad(
			{filter: /[\\/]node_modules[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/},
			async args => {
				const text = await fs.promises.readFile(args.path, 'utf8');
				const test = '"function"!=typeof fetch';
				const count = text.split(test).length - 1;
				if (count !== 2) {
					throw new Error(
						`yoga-without-fetch: expected 2 fetch checks in ${args.path}, ` +
							`found ${count} (yoga-layout changed: review this plugin)`,
					);
				}

				return {contents: text.replaceAll(test, 'true'), loader: 'js'};
			},
		);
	},
};

// Ink's text modules build a grapheme segmenter when they load (string-width, wrap-ansi,
// slice-ansi, ansi-tokenize, Ink's line-update), cli-truncate one per call, and string-width
// compiles its RGI-emoji regex at load too. The first Intl.Segmenter loads ICU's break data, though a
// screen of plain narrow text never needs it (text/width.ts, Ink's output.js as patched). Here each
// module gets dist/text/segmenter.js's lazy segmenter (plain text split without ICU, a real
// segmenter built on first need), and the regex is built on first use. Every use is
// `.segment(text)` (iterated, or `[Symbol.iterator]()`) / `.containing(i)` / `.test(text)`; a module
// that changes shape, or that is no longer bundled, fails the build rather than bundling unchanged.
const LAZY_TEXT_MODULES = [
	{file: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/, segmenters: 1, rgi: 1},
	{file: /[\\/]node_modules[\\/]wrap-ansi[\\/]index\.js$/, segmenters: 1, rgi: 0},
	{file: /[\\/]node_modules[\\/]cli-truncate[\\/]index\.js$/, segmenters: 1, rgi: 0},
	{file: /[\\/]node_modules[\\/]slice-ansi[\\/]tokenize-ansi\.js$/, segmenters: 1, rgi: 0},
	{file: /[\\/]node_modules[\\/]@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]tokenize\.js$/, segmenters: 1, rgi: 0},
	{file: /[\\/]node_modules[\\/]ink[\\/]build[\\/]line-update\.js$/, segmenters: 1, rgi: 0},
];
const RGI_REGEX = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
const lazyText = {
	name: 'lazy-text-tables',
	setup(b) {
		const seen = new Set();
		b.onLoad({filter: /[\\/]node_modules[\\/].*\.js$/}, async args => {
			const spec = LAZY_TEXT_MODULES.find(m => m.file.test(args.path));
			if (!spec) {
				return undefined;
			}

			seen.add(spec);
			let text = await fs.promises.readFile(args.path, 'utf8');
			const segmenters = text.split('new Intl.Segmenter(').length - 1;
			const rgi = text.split(RGI_REGEX).length - 1;
			if (segmenters !== spec.segmenters || rgi !== spec.rgi) {
				throw new Error(
					`lazy-text-tables: ${args.path} has ${segmenters} segmenters ` +
						`and ${rgi} RGI regexes, expected ${spec.segmenters} and ${spec.rgi}: ` +
						`review this plugin`,
				);
			}

			// dist/text/segmenter.js: splits plain text without ICU, builds a real segmenter on first need.
			text =
				`import {lazySegmenter as __hfxLazySegmenter} ` +
				`from ${JSON.stringify(path.resolve('dist/text/segmenter.js'))};` +
				`\n${text.replaceAll('new Intl.Segmenter(', '__hfxLazySegmenter(')}`;
			text = text.replace(
				RGI_REGEX,
				() =>
					'let rgiEmojiRegexBuilt; const rgiEmojiRegex = {test: text => ' +
					"(rgiEmojiRegexBuilt ??= new RegExp('^\\\\p{RGI_Emoji}$', " +
					"'v')).test(text)};",
			);
			return {contents: text, loader: 'js'};
		});
		b.onEnd(result => {
			const missing = LAZY_TEXT_MODULES.filter(m => !seen.has(m));
			if (result.errors.length === 0 && missing.length > 0) {
				throw new Error(
					`lazy-text-tables: ${missing.map(m => m.file).join(', ')} not bundled any more: review this plugin`,
				);
			}
		});
	},
};

// Yoga measures every text node of a frame through Ink's measure-text.js, which runs widest-line (string-width per
// line). string-width's own fast path is printable ASCII only: the first text holding a ● or a · (every sessions row)
// built the real grapheme segmenter and compiled its Unicode-property regexes inside the first frame. Here it measures
// through dist/text/width.js's widestLine: the narrow symbols hfx draws are one column each (text/width.ts), anything
// else still string-width. Measured on the held 1M-message bench store in a 140x40 pty (7 interleaved starts each,
// 2026-12-02, a machine at load 9-13 on 2 cores): "render started" to "first frame" median 868 -> 445 ms, and
// string-width left the first frame's CPU profile (it was its largest part, ~0.3 s of hangulClusterWidth and the
// segmenter under --cpu-prof).
const MEASURE_CALL = 'const width = widestLine(text);';
const measureNarrow = {
	name: 'measure-narrow-text',
	setup(b) {
		b.onLoad({filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]measure-text\.js$/}, async args => {
			const text = await fs.promises.readFile(args.path, 'utf8');
			const count = text.split(MEASURE_CALL).length - 1;
			if (count !== 1) {
				throw new Error(
					`measure-narrow-text: expected 1 "${MEASURE_CALL}" in ${args.path}, found ${count}: review this plugin`,
				);
			}

			return {
				contents:
					`import {widestLine as __hfxWidestLine} from ${JSON.stringify(path.resolve('dist/text/width.js'))};\n` +
					text.replace(MEASURE_CALL, 'const width = __hfxWidestLine(text);'),
				loader: 'js',
			};
		});
	},
};

/** Every rewrite above, in the order the bundle applies them. */
export const inkPlugins = [noDevtools, reactProduction, yogaWithoutFetch, lazyText, measureNarrow];
