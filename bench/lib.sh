# bench/lib.sh: shell helpers the bench scripts share (sourced, not run).

# dynamic_bench_bin [DIR]: build the outcore-dynamic `dynamic` bench of the
# checkout in DIR (default: here) and print the executable's path.
dynamic_bench_bin() {
  (cd "${1:-.}" && cargo bench -q -p outcore-dynamic --bench dynamic --no-run --message-format=json 2>/dev/null) \
    | python3 -c "import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get('reason')=='compiler-artifact' and m['target']['name']=='dynamic' and m.get('executable'): print(m['executable'])"
}
