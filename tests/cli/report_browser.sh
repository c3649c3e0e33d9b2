#!/usr/bin/env bash
# report_browser.sh DIFFTEST CORPUS ARTIFACTS: `difftest report` of a real campaign (the builtin
# compiler with a fault planted, its coverage map kept), opened in headless Chromium (Debian's
# chromium, scripts/setup.sh --all): the page's script ran, every plot drew marks from the data,
# every link in the findings table names a file that exists, and the report.json beside it is
# the page's data. The screenshot is kept in ARTIFACTS/report-builtin.png.
set -u
difftest=$1
corpus=$2
artifacts=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v chromium > /dev/null || fail "chromium is not installed (scripts/setup.sh --all installs Debian's)"
mkdir -p "$artifacts"
c="$tmp/campaign"
"$difftest" fuzz --seeds 0..39 --jobs 2 --inject mul-drops-tail --opt O0,O2 --orders 0 --random-bindings 0 \
  --out "$c" --coverage "$c/coverage.json" > "$tmp/fuzz.out" 2>&1
[ $? -eq 1 ] || fail "the campaign found nothing: $(tail -5 "$tmp/fuzz.out")"
"$difftest" report "$c" --known "$corpus" > "$tmp/report.out" 2>&1 || fail "report failed: $(cat "$tmp/report.out")"
grep -q "new and [1-9][0-9]* known failure signatures" "$tmp/report.out" || fail "no known finding: $(cat "$tmp/report.out")"
browse() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$tmp/profile" "$@" 2> "$tmp/chromium.err"
}
browse --dump-dom "file://$c/report.html" > "$tmp/dom.html" || fail "chromium could not render the page: $(tail -3 "$tmp/chromium.err")"
browse --window-size=1280,2700 --screenshot="$artifacts/report-builtin.png" "file://$c/report.html" > /dev/null \
  || fail "no screenshot: $(tail -3 "$tmp/chromium.err")"
python3 - "$tmp/dom.html" "$c" "$artifacts/report-builtin.png" <<'PY' || exit 1
import html.parser, json, os, sys
dom, campaign, shot = sys.argv[1:]
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.rendered = None; self.plots = {}; self.links = []; self.svgs = 0; self.rows = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body": self.rendered = a.get("data-rendered")
        if tag == "figure" and "plot" in a.get("class", ""): self.plots[a["id"]] = int(a.get("data-marks", "-1"))
        if tag == "a": self.links.append(a["href"])
        if tag == "svg": self.svgs += 1
        if tag == "tr": self.rows += 1
p = Page(); p.feed(open(dom).read())
assert p.rendered == "yes", "the page's script did not finish"
assert len(p.plots) == 10, f"expected 10 plots, found {sorted(p.plots)}"
empty = [k for k, n in p.plots.items() if n <= 0]
assert not empty, f"plots without data: {empty} ({p.plots})"
assert p.svgs >= 10
data = json.load(open(os.path.join(campaign, "report.json")))
assert p.rows == 1 + len(data["findings"]), (p.rows, len(data["findings"]))
assert p.links, "the findings table links no reproducer"
for href in p.links:
    assert os.path.isfile(os.path.join(campaign, href)), f"a link that does not resolve: {href}"
assert os.path.getsize(shot) > 20000, "the screenshot is (nearly) empty"
print(f"rendered: {len(p.plots)} plots, {sum(p.plots.values())} marks, {len(p.links)} links resolved, "
      f"{len(data['findings'])} findings; screenshot {shot}")
PY
echo ok
