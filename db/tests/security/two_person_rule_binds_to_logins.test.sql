-- The two-person rule binds to authenticated logins, not to typed names:
-- session_user is recorded on the request (requested_login) and the approval
-- (approved_login), and the login that submitted cannot approve, whatever
-- name it types (DL3A1). Typed names stay labels, compared in normalised form
-- (NFKC, case-folded, whitespace and invisible characters removed), so
-- look-alike spellings of the requester's name are refused from any login.
-- Identities with control characters are refused (DL1I1). The setting
-- allow_same_login_approval relaxes the login half only.
\ir ../fixtures/lifecycle.sql
begin;
select plan(33);

-- One login, two names: refused.
select tests.lc_inventoried('login-one.example', 'alice') as rid \gset
select is((select requested_login from community_deletion.requests where id = :'rid'), session_user::text,
  'the request records the submitting login');
select throws_ok(format($$ select community_deletion.approve(%L, 'bob') $$, :'rid'), 'DL3A1', null,
  'the submitting login cannot approve, even typing another name');
select throws_like(format($$ select community_deletion.approve(%L, 'bob') $$, :'rid'),
  '%the database login ' || session_user || ' submitted it and cannot also approve it%',
  'the refusal names the login');

-- Another login approves; the approval records it, whatever a direct insert says.
select lives_ok(format($$ select tests.approve(%L, 'bob') $$, :'rid'), 'a second login approves');
select is((select (approved_by, approved_login)::text from community_deletion.approvals where request_id = :'rid'),
  '(bob,cd_test_approver)', 'the approval records the approving login');

-- Names that are the requester's in disguise: refused from any login.
select tests.lc_inventoried('login-names.example', 'alice') as rid2 \gset
select throws_ok(format($$ select tests.approve(%L, %L) $$, :'rid2', n), 'DL3A1', null, 'refused: ' || d)
  from (values ('ALICE', 'another case'),
               (' alice ', 'surrounding spaces'),
               (E'al\u200bice', 'a zero-width space inside'),
               (E'ali\u00a0ce', 'a no-break space inside'),
               (E'\uff41\uff4c\uff49\uff43\uff45', 'full-width letters'),
               (E'a l i c e', 'spaces between the letters'),
               (E'alice\u2060', 'a word joiner after it'),
               (E'\ufeffalice', 'a byte-order mark before it'),
               (E'alice\U000e0020', 'an invisible tag character after it'),
               (E'ali\U000e0100ce', 'a variation selector of the supplement inside'),
               (E'al\U0001d173ice', 'a musical format character inside'),
               (E'alic\U00013430e', 'an Egyptian format control inside'),
               (E'\U0001bca0alice', 'a shorthand format control before it'),
               (E'ali\U000110bdce', 'a Kaithi number sign inside'),
               (E'al\u2800ice', 'a Braille blank inside'),
               (E'ali\U00016fe4ce', 'a Khitan filler inside'),
               (E'alice\ue000', 'a private-use character after it')) as v(n, d)
 where n is not null and d is not null;

-- Control characters in identities are refused outright.
select throws_ok($$ select community_deletion.submit('login-names.example', E'eve\u001b[31m', 'x') $$, 'DL1I1', null,
  'an ANSI escape in an identity is refused');
select throws_ok($$ select community_deletion.submit('login-names.example', E'eve\nbob', 'x') $$, 'DL1I1', null,
  'a line break in an identity is refused');
select throws_ok(format($$ select tests.approve(%L, E'al\tice') $$, :'rid2'), 'DL1I1', null,
  'a tab in an identity is refused');
select throws_ok($$ select community_deletion.submit('login-names.example', E'\u200b\u200b', 'x') $$, 'DL1I1', null,
  'an identity of invisible characters only is refused');
select throws_ok($$ select community_deletion.submit('login-names.example', E'\U000e0020\U000e0020', 'x') $$, 'DL1I1', null,
  'an identity of invisible tag characters only is refused');
select throws_ok(format($$ select tests.approve(%L, E'\u202eecila') $$, :'rid2'), 'DL1I1',
  'community deletion: approved_by contains bidirectional control characters',
  'a right-to-left override (which would show "ecila" as "alice") is refused outright');
select throws_ok($$ select community_deletion.submit('login-names.example', E'eve\u200f', 'x') $$, 'DL1I1', null,
  'a right-to-left mark in an identity is refused');
select ok(community_deletion._same_operator('STRASSE', E'stra\u00dfe') and community_deletion._same_operator(E'STRA\u1e9eE', 'strasse'),
  'sharp s folds to ss, as case folding does (lower() alone leaves it)');
select ok(community_deletion._same_operator(E'\u03a3\u03bf\u03c6\u03bf\u03c2', E'\u03c3\u03bf\u03c6\u03bf\u03c3'),
  'a final sigma is a sigma');

-- The development relaxation covers the login only.
update community_deletion.settings set allow_same_login_approval = true;
select tests.lc_inventoried('login-dev.example', 'alice') as rid3 \gset
select throws_ok(format($$ select community_deletion.approve(%L, 'Alice') $$, :'rid3'), 'DL3A1', null,
  'with the relaxation, the same typed name is still refused');
select lives_ok(format($$ select community_deletion.approve(%L, 'bob') $$, :'rid3'),
  'with the relaxation, one login may approve under another name (single-login development only)');

select * from finish();
rollback;
