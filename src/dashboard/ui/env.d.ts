// esbuild bundles imported style sheets into the dashboard's CSS asset.
declare module '*.css';
