//! Tests rank under the code they test, in hits and in files mode, unless the query is
//! about tests: small TS, Go and Python fixtures parsed by the real tag extractor, where
//! the test file repeats the query's words more often than the implementation does.

use crate::common;

use mapscope::engine::search::SearchResponse;

use common::{parsed, search_parsed as search};

fn file_rank(resp: &SearchResponse, path: &str) -> usize {
    resp.files
        .iter()
        .position(|f| f.0 == path)
        .unwrap_or_else(|| panic!("{path} not in {:?}", resp.files))
}

/// `above` ranks before `below` in files mode.
fn ranks_above(resp: &SearchResponse, above: &str, below: &str) {
    assert!(
        file_rank(resp, above) < file_rank(resp, below),
        "{above} not above {below}: {:?}",
        resp.files
    );
}

/// Every hit shown in `test` comes after every hit shown in `imp`: the two files' hits do
/// not interleave.
fn hits_under(resp: &SearchResponse, imp: &str, test: &str) {
    let last_impl = resp
        .hits
        .iter()
        .rposition(|h| h.file_path == imp)
        .unwrap_or_else(|| panic!("no hit in {imp}: {:#?}", resp.hits));
    if let Some(first_test) = resp.hits.iter().position(|h| h.file_path == test) {
        assert!(last_impl < first_test, "{:#?}", resp.hits);
    }
    for w in resp.hits.windows(2) {
        assert!(w[0].score >= w[1].score, "hits are in score order");
    }
}

const CART_TS: &str = "export interface Line { price: number; qty: number }

export function computeDiscount(lines: Line[], code: string): number {
  const total = lines.reduce((s, l) => s + l.price * l.qty, 0)
  return code === 'SALE' ? total * 0.1 : 0
}
";

const CART_TEST_TS: &str = "import { computeDiscount } from '../src/cart'

describe('shopping cart discount calculation', () => {
  it('calculates the cart discount for a shopping cart', () => {
    expect(computeDiscount([{ price: 10, qty: 1 }], 'SALE')).toBe(1)
  })
  it('no discount calculation without a code', () => {
    expect(computeDiscount([], '')).toBe(0)
  })
})
";

#[test]
fn typescript_test_file_ranks_under_its_implementation() {
    let files = [
        parsed("src/cart.ts", CART_TS),
        parsed("tests/cart.test.ts", CART_TEST_TS),
    ];
    let q = "shopping cart discount calculation";
    let resp = search(&files, q, true);
    ranks_above(&resp, "src/cart.ts", "tests/cart.test.ts");
    hits_under(
        &search(&files, q, false),
        "src/cart.ts",
        "tests/cart.test.ts",
    );

    // A query about tests keeps the tests first.
    let resp = search(&files, "cart discount calculation tests", true);
    assert_eq!(resp.files[0].0, "tests/cart.test.ts");
}

const CHECKPOINT_GO: &str = "package wal

// Checkpoint creates a compacted checkpoint of the WAL segments.
func Checkpoint(dir string, from, to int) error {
\treturn nil
}
";

const CHECKPOINT_TEST_GO: &str = "package wal

import \"testing\"

func TestCheckpoint(t *testing.T) {
\tif err := Checkpoint(\"wal\", 0, 1); err != nil {
\t\tt.Fatal(err)
\t}
}

func TestCheckpointNoopWAL(t *testing.T) {
\t// wal checkpoint on an empty wal
\t_ = Checkpoint(\"wal\", 0, 0)
}

func TestWALCheckpointSegments(t *testing.T) {
\t_ = Checkpoint(\"wal\", 1, 2)
}
";

#[test]
fn go_tests_rank_under_their_implementation() {
    let files = [
        parsed("tsdb/wal/checkpoint.go", CHECKPOINT_GO),
        parsed("tsdb/wal/checkpoint_test.go", CHECKPOINT_TEST_GO),
    ];
    let resp = search(&files, "wal checkpoint", false);
    hits_under(
        &resp,
        "tsdb/wal/checkpoint.go",
        "tsdb/wal/checkpoint_test.go",
    );
    assert_eq!(resp.hits[0].file_path, "tsdb/wal/checkpoint.go");
    let resp = search(&files, "wal checkpoint", true);
    assert_eq!(resp.files[0].0, "tsdb/wal/checkpoint.go");
}

const RUNNER_PY: &str = "def run_teardown(item):
    \"\"\"Run the teardown phase of one item.\"\"\"
    return item
";

const TEST_RUNNER_PY: &str = "from runner import run_teardown


def test_teardown_phase_runs():
    assert run_teardown(1) == 1


def test_teardown_phase_after_failure():
    # teardown phase still runs
    assert run_teardown(2) == 2
";

#[test]
fn python_tests_rank_under_their_implementation() {
    let files = [
        parsed("src/_pytest/runner.py", RUNNER_PY),
        parsed("testing/test_runner.py", TEST_RUNNER_PY),
    ];
    let resp = search(&files, "teardown phase", true);
    ranks_above(&resp, "src/_pytest/runner.py", "testing/test_runner.py");
    hits_under(
        &search(&files, "teardown phase", false),
        "src/_pytest/runner.py",
        "testing/test_runner.py",
    );
}

const DISCOUNTS_TS: &str = "export interface Line { price: number; qty: number }

// The discount calculation for a shopping cart.
export function computeDiscount(lines: Line[], code: string): number {
  return cartTotal(lines) * discountRate(code)
}

export function discountRate(code: string): number {
  return code === 'SALE' ? 0.1 : 0
}

export function cartTotal(lines: Line[]): number {
  return lines.reduce((s, l) => s + l.price * l.qty, 0)
}
";

const DISCOUNTS_TEST_TS: &str = "import { computeDiscount, discountRate } from '../src/discounts'

describe('shopping cart discount calculation', () => {
  it('cart discount calculation for a sale', () => {
    expect(computeDiscount([{ price: 10, qty: 1 }], 'SALE')).toBe(1)
  })
})

describe('discount rate', () => {
  it('discount rate for a shopping cart code', () => {
    expect(discountRate('SALE')).toBe(0.1)
  })
})
";

#[test]
fn an_implementation_with_several_hits_shows_them_all_before_its_test() {
    // The implementation has three matching definitions and the test two matching blocks
    // that each repeat the query: every shown implementation hit comes first, not only
    // its best one.
    let files = [
        parsed("src/discounts.ts", DISCOUNTS_TS),
        parsed("tests/discounts.test.ts", DISCOUNTS_TEST_TS),
    ];
    let resp = search(&files, "shopping cart discount rate calculation", false);
    let impl_hits = resp
        .hits
        .iter()
        .filter(|h| h.file_path == "src/discounts.ts")
        .count();
    assert!(impl_hits >= 2, "{:#?}", resp.hits);
    assert!(
        resp.hits
            .iter()
            .any(|h| h.file_path == "tests/discounts.test.ts"),
        "the test stays in the list: {:#?}",
        resp.hits
    );
    hits_under(&resp, "src/discounts.ts", "tests/discounts.test.ts");
}

#[test]
fn a_test_without_a_matching_implementation_is_lifted_under_nothing() {
    // The implementation does not mention the query at all: it is lifted to just above
    // its test (it is what the test exercises), and the test stays in the list.
    let files = [
        parsed(
            "src/cart.ts",
            "export function total(): number {\n  return 0\n}\n",
        ),
        parsed("tests/cart.test.ts", CART_TEST_TS),
    ];
    let resp = search(&files, "shopping discount calculation", true);
    ranks_above(&resp, "src/cart.ts", "tests/cart.test.ts");
}

/// A Python stub (`.pyi`) declares what code elsewhere implements, as a `.d.ts` does: a
/// stub that repeats the query's words in its overloads ranks under the implementation
/// (the stub's own words outscore it before the stub is demoted).
#[test]
fn a_python_stub_ranks_under_the_implementation() {
    let stub = "from typing import overload

@overload
def connect(host: str, timeout: float) -> Connection: ...
@overload
def connect(host: str, timeout: float, retries: int) -> Connection: ...
@overload
def connect(host: bytes, timeout: float, retries: int, backoff: float) -> Connection: ...

class Connection:
    def reconnect(self, timeout: float, retries: int) -> None: ...
";
    let implementation = "class Connection:
    def __init__(self, sock):
        self.sock = sock

    def reconnect(self, timeout, retries):
        return self


def connect(host, timeout=None, retries=3, backoff=0.5):
    return Connection(open_socket(host, timeout))


def open_socket(host, timeout):
    return (host, timeout)
";
    let files = [
        parsed("stubs/net/client.pyi", stub),
        parsed("src/net/client.py", implementation),
    ];
    let resp = search(&files, "connect with timeout and retries", true);
    ranks_above(&resp, "src/net/client.py", "stubs/net/client.pyi");
    // A look-up of the name puts the implementation's definition first, too.
    let resp = search(&files, "connect", false);
    assert_eq!(
        resp.hits[0].file_path, "src/net/client.py",
        "{:#?}",
        resp.hits
    );
}

/// A query that names examples (or playgrounds, benchmarks) lifts their demotion, as a query
/// about tests lifts the tests'. The example repeats the query's words a little more often
/// than the library: demoted, it ranks under it; lifted, above.
#[test]
fn a_query_naming_an_example_lifts_the_examples_demotion() {
    let library = "package retry

// Backoff waits longer after each failed attempt.
func Backoff(attempt int) int {
	return attempt * attempt
}

// Do runs f until it succeeds or the attempts run out, waiting with Backoff.
func Do(attempts int, f func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = f(); err == nil {
			return nil
		}
		wait(Backoff(i))
	}
	return err
}

func wait(ms int) {}
";
    let example = "package main

// A retry with exponential backoff: retry the request, backoff between attempts.
func main() {
	retryWithBackoff(3)
}

// retryWithBackoff shows the backoff of each retry attempt.
func retryWithBackoff(attempts int) {
	for attempt := 0; attempt < attempts; attempt++ {
		println(\"retry\", attempt, \"backoff\", attempt*attempt)
	}
}
";
    let files = [
        parsed("retry/retry.go", library),
        parsed("examples/backoff/main.go", example),
        parsed(
            "stubs/retry.pyi",
            "def retry_backoff(attempts: int) -> int: ...\n",
        ),
    ];
    let penalty_in = |resp: &SearchResponse, path: &str| {
        resp.hits
            .iter()
            .find(|h| h.file_path == path)
            .unwrap_or_else(|| panic!("no hit in {path}: {:#?}", resp.hits))
            .signals
            .penalty
    };
    let penalty_of = |resp: &SearchResponse| penalty_in(resp, "examples/backoff/main.go");
    let plain = search(&files, "retry backoff attempts", true);
    assert!(penalty_of(&plain) < 1.0, "{:#?}", plain.hits);
    ranks_above(&plain, "retry/retry.go", "examples/backoff/main.go");
    let about_examples = search(&files, "retry backoff attempts example", true);
    assert_eq!(
        penalty_of(&about_examples),
        1.0,
        "{:#?}",
        about_examples.hits
    );
    // A type stub is secondary too, but not an example: it stays demoted.
    assert!(penalty_in(&about_examples, "stubs/retry.pyi") < 1.0);
    ranks_above(
        &about_examples,
        "examples/backoff/main.go",
        "retry/retry.go",
    );
}
