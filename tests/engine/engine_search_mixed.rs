//! Chinese and mixed-language queries reach definition names, not only paths and text: the
//! glossary's English words, joined in code order (`折扣 计算` → `computeDiscount`), match a
//! definition's name; and tests stay under their implementation for such queries too. A
//! small TS fixture parsed by the real tag extractor.

use crate::common;

use common::{parsed, search_parsed as search};

const CART_TS: &str = "import { computeDiscount } from './pricing'

/** The shopping cart: items and their total. */
export class Cart {
  items: { price: number; qty: number }[] = []
  add(price: number, qty: number) {
    this.items.push({ price, qty })
  }
  total(): number {
    const sum = this.items.reduce((s, i) => s + i.price * i.qty, 0)
    return sum - computeDiscount(this, sum)
  }
}
";

const PRICING_TS: &str = "import type { Cart } from './cart'

export function computeDiscount(cart: Cart, sum: number): number {
  return cart.items.length > 3 ? sum * 0.1 : 0
}
";

const CHECKOUT_TS: &str = "import { Cart } from './cart'

export function checkout(cart: Cart): string {
  // the cart's discount is computed inside Cart.total
  return `total: ${cart.total()}`
}
";

const CART_TEST_TS: &str = "import { Cart } from '../src/cart'
import { computeDiscount } from '../src/pricing'

test('cart discount is computed', () => {
  const cart = new Cart()
  cart.add(10, 1)
  expect(computeDiscount(cart, 10)).toBe(0)
})
";

fn fixture() -> Vec<mapscope::engine::base::model::ParsedFile> {
    vec![
        parsed("src/cart.ts", CART_TS),
        parsed("src/pricing.ts", PRICING_TS),
        parsed("src/checkout.ts", CHECKOUT_TS),
        parsed("tests/cart.test.ts", CART_TEST_TS),
    ]
}

fn position(files: &[(String, f64)], path: &str) -> usize {
    files
        .iter()
        .position(|f| f.0 == path)
        .unwrap_or_else(|| panic!("{path} not in {files:?}"))
}

#[test]
fn chinese_words_reach_the_definition_they_name() {
    let files = fixture();
    let resp = search(&files, "购物车 折扣 计算", false);
    let top = &resp.hits[0];
    assert_eq!(top.file_path, "src/pricing.ts", "{:#?}", resp.hits);
    assert_eq!(top.symbol.as_deref(), Some("computeDiscount"));
    assert!(top.signals.name > 0.0, "{:#?}", top.signals);
    let resp = search(&files, "购物车 折扣 计算", true);
    assert_eq!(resp.files[0].0, "src/pricing.ts", "{:?}", resp.files);
    assert!(
        position(&resp.files, "src/cart.ts") < position(&resp.files, "tests/cart.test.ts"),
        "{:?}",
        resp.files
    );
}

#[test]
fn mixed_queries_keep_tests_under_their_implementation() {
    let files = fixture();
    for q in ["cart 折扣 计算", "购物车 discount", "计算 cart discount"] {
        let resp = search(&files, q, true);
        assert!(
            position(&resp.files, "src/cart.ts") < position(&resp.files, "tests/cart.test.ts"),
            "{q}: {:?}",
            resp.files
        );
        let resp = search(&files, q, false);
        assert!(
            resp.hits[0].file_path != "tests/cart.test.ts",
            "{q}: {:#?}",
            resp.hits
        );
    }
}
