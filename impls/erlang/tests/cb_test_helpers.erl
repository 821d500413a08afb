%% Helpers shared by the kernels' tests (EUnit finds no tests here).
-module(cb_test_helpers).
-export([isolated/1, spawn_count/1, settles/2, assert_equal/4, assert_true/3]).

%% Runs a kernel call in a fresh process that does not trap exits and links to what it spawns,
%% as the front end does; returns its result, or fails the test with the crash reason.
isolated(Fun) ->
    Parent = self(),
    {Pid, Ref} = spawn_monitor(fun() -> Parent ! {self(), Fun()} end),
    receive
        {Pid, Value} -> erlang:demonitor(Ref, [flush]), Value;
        {'DOWN', Ref, process, Pid, Reason} -> error({kernel_crashed, Reason})
    after 60000 -> exit(Pid, kill), error(kernel_timeout)
    end.

%% How many processes a function spawns, counted by tracing a fresh process that runs it.
spawn_count(Fun) ->
    Go = make_ref(),
    Parent = self(),
    {Pid, Ref} = spawn_monitor(fun() -> receive Go -> ok end, Fun(), Parent ! {done, self()} end),
    1 = erlang:trace(Pid, true, [procs]),
    Pid ! Go,
    receive {done, Pid} -> ok end,
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    erlang:trace_delivered(Pid),
    receive {trace_delivered, Pid, _} -> ok end,
    spawned(Pid, 0).

spawned(Pid, K) ->
    receive
        {trace, Pid, spawn, _, _} -> spawned(Pid, K + 1);
        {trace, Pid, _, _} -> spawned(Pid, K);
        {trace, Pid, _, _, _} -> spawned(Pid, K)
    after 0 -> K
    end.

%% Whether the process count falls back to at most Before within K polls 10 ms apart: a finished
%% kernel leaves no process behind.
settles(Before, 0) -> erlang:system_info(process_count) =< Before;
settles(Before, K) ->
    case erlang:system_info(process_count) =< Before of
        true -> true;
        false -> timer:sleep(10), settles(Before, K - 1)
    end.

%% The checks behind cb_asserts.hrl's ?assertEqual and ?assert.
assert_equal(Want, Want, _Text, _Line) -> ok;
assert_equal(Want, Got, Text, Line) ->
    erlang:error({assert_equal, [{line, Line}, {expression, Text}, {expected, Want}, {value, Got}]}).

assert_true(true, _Text, _Line) -> ok;
assert_true(Got, Text, Line) ->
    erlang:error({assert, [{line, Line}, {expression, Text}, {expected, true}, {value, Got}]}).
