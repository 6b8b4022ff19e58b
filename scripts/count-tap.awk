# Counts leaf assertions in TAP 14 output with nested subtests. A result line
# at the same indentation as an open "# Subtest:" line is that subtest's
# summary, not an assertion. Prints "PASSED FAILED".
function indent(s) { match(s, /[^ ]/); return RSTART - 1 }
/^ *# Subtest/ { stack[++top] = indent($0); next }
/^ *(not )?ok [0-9]+/ {
  d = indent($0)
  if (top > 0 && stack[top] == d) { top--; next }
  if ($0 ~ /^ *not ok/) { f++ } else if ($0 ~ /# SKIP/) { s++ } else { p++ }
}
END { printf "%d %d\n", p, f }
