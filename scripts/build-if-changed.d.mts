/** Types of build-if-changed.mjs, for the TypeScript that imports it (test/global-setup.ts). */
export type Build = (root: string) => void;
export declare const BUILDS: { package: Build; web: Build };
export declare function newestMtime(dir: string, pattern: RegExp): number;
export declare function buildIfChanged(root?: string, builds?: { package: Build; web: Build }): string[];
