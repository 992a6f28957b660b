// Every `js` block of README.md and docs/javascript.md runs as written, as a module
// beside the built npuzzle.js (NPUZZLE_WEB_DIR), so the page stays true.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const web = process.env.NPUZZLE_WEB_DIR;
const blocks = ["README.md", "docs/javascript.md"].flatMap((name) => {
  const text = readFileSync(new URL(`../../${name}`, import.meta.url), "utf8");
  return [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
});

test("README.md and docs/javascript.md: every js block runs", async () => {
  assert.ok(web, "set NPUZZLE_WEB_DIR (cargo xtask web)");
  assert.ok(blocks.length >= 2, `${blocks.length} js blocks found`);
  for (const [i, block] of blocks.entries()) {
    const file = join(web, `docs-block-${i}.mjs`);
    writeFileSync(file, block);
    try {
      await import(pathToFileURL(file).href);
    } finally {
      rmSync(file, { force: true });
    }
  }
});
