import pytest

from mlx.extract.patches import commit_refs, patch_facts, trailers

GIT_DIFF = """Fix the thing.

Fixes: 0123456789ab ("net: a very long title that the author
   wrapped onto a second line")
Reported-by: Rita Ng <rita@example.org>
Link: https://lore.example.org/r/20240101000000.1-1-a@example.org
Cc: the whole list, please
Cc: stable@vger.kernel.org
Signed-off-by: Alice Novak <alice@example.org>
---
 net/core/dev.c | 3 ++-
 1 file changed, 2 insertions(+), 1 deletion(-)

diff --git a/net/core/dev.c b/net/core/dev.c
index 1111111..2222222 100644
--- a/net/core/dev.c
+++ b/net/core/dev.c
@@ -10,3 +10,4 @@ int dev_foo(void)
 {
-	return 0;
+	int x = 1;
+	return x;
 }
-- 
2.43.0
"""


def test_git_diff_facts() -> None:
    f = patch_facts(GIT_DIFF)
    assert f.has_diff
    # counted from the hunk: the "-- " signature is no deletion
    assert (f.diff_files, f.diff_insertions, f.diff_deletions) == (1, 2, 1)
    assert (f.diffstat_files, f.diffstat_insertions, f.diffstat_deletions) == (1, 2, 1)
    assert f.trailers == [
        ("Fixes", '0123456789ab ("net: a very long title that the author wrapped onto a second '
                  'line")'),
        ("Reported-by", "Rita Ng <rita@example.org>"),
        ("Link", "https://lore.example.org/r/20240101000000.1-1-a@example.org"),
        ("Cc", "stable@vger.kernel.org"),  # "Cc: the whole list" is prose, no address
        ("Signed-off-by", "Alice Novak <alice@example.org>"),
    ]
    assert f.commit_refs == ["0123456789ab"]


@pytest.mark.parametrize("body, files, ins, dels", [
    # plain diff -u without "diff --git", several files, empty context lines stripped by a mailer
    ("--- linux.orig/a.c\n+++ linux/a.c\n@@ -1,3 +1,3 @@\n x\n-y\n+z\n\n"
     "--- linux.orig/b.c\n+++ linux/b.c\n@@ -5 +5,2 @@\n-q\n+r\n+s\n", 2, 3, 2),
    # a new file from /dev/null
    ("diff --git a/n.c b/n.c\nnew file mode 100644\n--- /dev/null\n+++ b/n.c\n"
     "@@ -0,0 +1,2 @@\n+a\n+b\n", 1, 2, 0),
    # a binary diff has no hunk but is a change of one file
    ("diff --git a/fw.bin b/fw.bin\nindex 1..2 100644\nBinary files a/fw.bin and b/fw.bin "
     "differ\n", 1, 0, 0),
    # "\ No newline at end of file" inside a hunk
    ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n", 1, 1, 1),
    # quilt: an Index: line, tab-separated dates after the names
    ("Index: linux/net/core/dev.c\n=====\n--- linux.orig/net/core/dev.c\t2009-01-01 10:00\n"
     "+++ linux/net/core/dev.c\t2009-01-01 10:00\n@@ -1,4 +1,4 @@\n a\n\n-b\n+c\n d\n", 1, 1, 1),
    # CVS: "diff -u -r1.2", revisions after the names
    ("diff -u -r1.2 foo.c\n--- foo.c\t5 Jan 2004 1.2\n+++ foo.c\t6 Jan 2004\n@@ -1,2 +1,2 @@\n"
     "-a\n+b\n c\n", 1, 1, 1),
])
def test_diff_shapes(body: str, files: int, ins: int, dels: int) -> None:
    f = patch_facts("Intro.\n\n" + body)
    assert f.has_diff
    assert (f.diff_files, f.diff_insertions, f.diff_deletions) == (files, ins, dels)


def test_quoted_diff_and_trailers_do_not_count() -> None:
    reply = "> diff --git a/x b/x\n> --- a/x\n> +++ b/x\n> @@ -1 +1 @@\n> -a\n> +b\n" \
            "> Signed-off-by: A <a@x>\n\nLooks good.\n\nReviewed-by: B <b@x>\n"
    f = patch_facts(reply)
    assert not f.has_diff
    assert f.trailers == [("Reviewed-by", "B <b@x>")]


@pytest.mark.parametrize("text, refs", [
    ('since commit 95951af72499 ("receive: use gro")', ["95951af72499"]),
    ("https://git.zx2c4.com/WireGuard/commit/?id=95951af7249912a4356b9a03cf3addc7e3f8f724",
     ["95951af7249912a4356b9a03cf3addc7e3f8f724"]),
    ("https://github.com/torvalds/linux/commit/95951af7249912a4356b9a03cf3addc7e3f8f724",
     ["95951af7249912a4356b9a03cf3addc7e3f8f724"]),
    # too short to be a reference, and a hex word that is no commit
    ("commit abc123 and deadbeefcafe1234 in prose", []),
])
def test_commit_refs(text: str, refs: list[str]) -> None:
    assert commit_refs(text) == refs


def test_trailer_case_is_canonical() -> None:
    assert trailers("acked-by: C <c@x>") == [("Acked-by", "C <c@x>")]
