//! Vue and Svelte components through the real binary, on a repository the test writes: the
//! map shows each component's script definitions at the component file's lines and the
//! component itself, `search UserCard` answers with the component first, and `stats` counts
//! components as their own languages.

use std::path::Path;
use std::process::Command;

const APP_VUE: &str = "<template>
  <div id=\"app\">
    <UserCard :user=\"user\" />
  </div>
</template>

<script setup lang=\"ts\">
import UserCard from './components/UserCard.vue'
import { useUserStore } from './stores/user'

const store = useUserStore()
const user = store.current
</script>
";

const USER_CARD_VUE: &str = "<template>
  <div class=\"card\">{{ initials(user) }}</div>
</template>

<script setup lang=\"ts\">
import type { User } from '../stores/user'

const props = defineProps<{ user: User }>()

function initials(u: User): string {
  return u.name.slice(0, 1)
}
</script>

<style scoped>
.card { color: red }
</style>
";

const STORE_TS: &str = "export interface User {
  name: string
}

export function useUserStore() {
  return { current: { name: 'a' } as User }
}
";

const COUNTER_SVELTE: &str = "<script context=\"module\" lang=\"ts\">
  export const prerender = true
</script>

<script lang=\"ts\">
  import { useUserStore } from './stores/user'
  export let start: number = 0
  function increment() { start += useUserStore().current.name.length }
</script>

<button on:click={increment}>{start}</button>
";

const MAIN_TS: &str = "import App from './App.vue'
import Counter from './Counter.svelte'

export function mount() {
  return [App, Counter]
}
";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn run(root: &Path, cache: &Path, args: &[&str]) -> String {
    // `mapscope COMMAND ROOT ARGS…`
    let out = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .arg(args[0])
        .arg(root)
        .args(&args[1..])
        .env("MAPSCOPE_CACHE_DIR", cache)
        .output()
        .expect("run mapscope");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn vue_app() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("app");
    let cache = tmp.path().join("cache");
    write(&root, "src/App.vue", APP_VUE);
    write(&root, "src/components/UserCard.vue", USER_CARD_VUE);
    write(&root, "src/stores/user.ts", STORE_TS);
    write(&root, "src/Counter.svelte", COUNTER_SVELTE);
    write(&root, "src/main.ts", MAIN_TS);
    (tmp, root, cache)
}

/// The map's block of `path`: its lines up to the next blank line.
fn block<'a>(map: &'a str, path: &str) -> Vec<&'a str> {
    let start = map
        .find(&format!("{path}:\n"))
        .unwrap_or_else(|| panic!("{path} not in the map:\n{map}"));
    map[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect()
}

#[test]
fn components_are_mapped_at_their_own_lines() {
    let (_tmp, root, cache) = vue_app();
    let map = run(&root, &cache, &["map", "--tokens", "4096"]);
    let card = block(&map, "src/components/UserCard.vue");
    // The component (its first script's opening tag) and its script's definitions.
    assert!(card.contains(&"<script setup lang=\"ts\">"), "{card:?}");
    assert!(
        card.contains(&"function initials(u: User): string {"),
        "{card:?}"
    );
    assert!(!card.iter().any(|l| l.contains("color: red")), "{card:?}");
    let svelte = block(&map, "src/Counter.svelte");
    assert!(
        svelte.contains(&"  export const prerender = true"),
        "{svelte:?}"
    );
    assert!(
        svelte.iter().any(|l| l.contains("function increment()")),
        "{svelte:?}"
    );

    // The JSON map names the component file's own line numbers.
    let json = run(
        &root,
        &cache,
        &["map", "--tokens", "4096", "--format", "json"],
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let files = doc["files"].as_array().unwrap();
    let card = files
        .iter()
        .find(|f| f["path"] == "src/components/UserCard.vue")
        .unwrap();
    let range = |name: &str| {
        let sym = card["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in {card}"));
        (
            sym["line_range"][0].as_u64(),
            sym["kind"].as_str().map(str::to_owned),
        )
    };
    assert_eq!(range("UserCard"), (Some(5), Some("class".into())));
    assert_eq!(range("initials"), (Some(10), Some("function".into())));
}

#[test]
fn search_puts_the_component_first() {
    let (_tmp, root, cache) = vue_app();
    let out = run(&root, &cache, &["search", "UserCard"]);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("src/components/UserCard.vue:5-") && first.contains("UserCard"),
        "{out}"
    );
}

#[test]
fn stats_count_components_as_their_languages() {
    let (_tmp, root, cache) = vue_app();
    let json = run(&root, &cache, &["stats", "--json"]);
    assert!(
        json.contains("\"vue\"") && json.contains("\"svelte\""),
        "{json}"
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["files_by_language"]["vue"], 2, "{doc}");
    assert_eq!(doc["files_by_language"]["svelte"], 1, "{doc}");
    assert_eq!(doc["unsupported_files"], 0, "{doc}");
}
