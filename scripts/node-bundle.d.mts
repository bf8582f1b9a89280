// Types for scripts/node-bundle.mjs, which the TypeScript test helpers import.
import type { BuildOptions, Plugin } from 'esbuild';

export declare const ownImportMetaUrl: Plugin;
export declare const nodeBundleOptions: BuildOptions;
