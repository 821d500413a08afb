%% concbench for Erlang/OTP: the protocol front end (arguments, JSON lines, exit status).
%% Started as `erl ... -run concbench main -extra <protocol arguments>`; the arguments after
%% -extra are read with init:get_plain_arguments/0 so that flags such as --model reach us intact.
-module(concbench).
-export([main/0, main/1]).

-define(MODEL, "processes").

main() -> main([]).

main(Args0) ->
    Args = Args0 ++ init:get_plain_arguments(),
    Status =
        try parse(Args) of
            Conf -> run_isolated(Conf)
        catch
            throw:{usage, Msg} ->
                log(["concbench-erlang: ", Msg]),
                2;
            Class:Reason:Stack ->
                log(io_lib:format("concbench-erlang: internal error ~p:~p ~p", [Class, Reason, Stack])),
                1
        end,
    erlang:halt(Status).

%% ---------------------------------------------------------------- arguments

-record(conf, {bench, model, param, iterations, workers, options = []}).

usage(Fmt, Args) -> throw({usage, io_lib:format(Fmt, Args)}).

parse([]) -> usage("missing benchmark (usage: <benchmark> --model M --param P --iterations K [--workers W] [--option key=value]...)", []);
parse(["-" ++ _ = Flag | _]) -> usage("expected a benchmark before ~s", [Flag]);
parse([Bench | Rest]) ->
    C = flags(Rest, #conf{bench = Bench}),
    C#conf.model =:= undefined andalso usage("missing --model", []),
    C#conf.param =:= undefined andalso usage("missing --param", []),
    C#conf.iterations =:= undefined andalso usage("missing --iterations", []),
    Bench =:= "big" orelse Bench =:= "chameneos" orelse Bench =:= "fannkuch"
        orelse usage("unknown benchmark '~s' (known: big, chameneos, fannkuch)", [Bench]),
    C#conf.model =:= ?MODEL orelse usage("unknown model '~s' (known: ~s)", [C#conf.model, ?MODEL]),
    Workers = case C#conf.workers of
                  undefined -> erlang:system_info(schedulers_online);
                  W -> W
              end,
    Opts = C#conf.options,   % newest first: keyfind sees the last occurrence of a key
    Spec = bench_spec(Bench, C#conf.param, Opts, Workers),
    {Bench, C#conf.iterations, Spec}.

flags([], C) -> C;
flags(["--model", V | R], C) -> flags(R, C#conf{model = V});
flags(["--param", V | R], C) -> flags(R, C#conf{param = V});
flags(["--iterations", V | R], C) -> flags(R, C#conf{iterations = pos_int("--iterations", V)});
flags(["--workers", V | R], C) -> flags(R, C#conf{workers = pos_int("--workers", V)});
flags(["--option", V | R], C) ->
    case string:split(V, "=") of
        [K, Val] when K =/= "" -> flags(R, C#conf{options = [{K, Val} | C#conf.options]});
        _ -> usage("malformed --option '~s' (want key=value)", [V])
    end;
flags([F], _) when F =:= "--model"; F =:= "--param"; F =:= "--iterations";
                   F =:= "--workers"; F =:= "--option" ->
    usage("~s needs a value", [F]);
flags([F | _], _) -> usage("unknown argument '~s'", [F]).

nat(What, S) ->
    case S =/= "" andalso lists:all(fun(Ch) -> Ch >= $0 andalso Ch =< $9 end, S) of
        true -> list_to_integer(S);
        false -> usage("~s: '~s' is not a non-negative integer", [What, S])
    end.

pos_int(What, S) ->
    case nat(What, S) of
        0 -> usage("~s must be at least 1", [What]);
        N -> N
    end.

%% Options: every key must be known to the benchmark; the last occurrence of a key wins.
check_keys(Bench, Opts, Known) ->
    [usage("unknown option '~s' for ~s (known: ~s)", [K, Bench, lists:join(", ", Known)])
     || {K, _} <- Opts, not lists:member(K, Known)],
    ok.

opt(Key, Opts, Default) ->
    case lists:keyfind(Key, 1, Opts) of
        {_, V} -> V;
        false -> Default
    end.

shape(Bench, Opts, Shapes) ->
    S = opt("shape", Opts, hd(Shapes)),
    lists:member(S, Shapes) orelse
        usage("unknown shape '~s' for ~s/~s (known: ~s)", [S, Bench, ?MODEL, lists:join(", ", Shapes)]),
    list_to_atom(S).

bench_spec("big", Param, Opts, _Workers) ->
    check_keys("big", Opts, ["shape", "pings", "hood"]),
    Shape = shape("big", Opts, ["processes", "tuple"]),
    N = pos_int("N (--param)", Param),
    P = nat("pings", opt("pings", Opts, "16000")),
    H = pos_int("hood", opt("hood", Opts, "1000")),
    {big, Shape, N, P, H};
bench_spec("chameneos", Param, Opts, _Workers) ->
    check_keys("chameneos", Opts, ["shape", "variant", "meetings"]),
    Shape = shape("chameneos", Opts, ["message"]),
    case opt("variant", Opts, "encore") of
        "encore" ->
            C = nat("C (--param)", Param),
            C >= 2 orelse usage("chameneos needs at least 2 creatures, got ~b", [C]),
            M = pos_int("meetings", opt("meetings", Opts, "8000000")),
            {chameneos, Shape, encore, C, M};
        "redux" ->
            N = pos_int("n (--param)", Param),
            {chameneos, Shape, redux, N};
        V ->
            usage("unknown chameneos variant '~s' (known: encore, redux)", [V])
    end;
bench_spec("fannkuch", Param, Opts, Workers) ->
    check_keys("fannkuch", Opts, ["shape", "chunks"]),
    Shape = shape("fannkuch", Opts, ["processes", "pool"]),
    N = pos_int("n (--param)", Param),
    N =< 20 orelse usage("n = ~b is too large (at most 20)", [N]),
    K = pos_int("chunks", opt("chunks", Opts, "150")),
    {fannkuch, Shape, N, K, Workers}.

%% ---------------------------------------------------------------- running

%% The process that `-run` starts traps exits, so every linked process that ended would leave an
%% 'EXIT' message in its mailbox, and selective receives (the chameneos broker's) would crawl
%% past them. The benchmarks therefore run in a fresh process that does not trap exits and links
%% to what it spawns: if any of those crashes, the runner dies too and we exit with status 1.
run_isolated(Conf) ->
    {Pid, Ref} = spawn_monitor(fun() -> run(Conf) end),
    receive
        {'DOWN', Ref, process, Pid, normal} -> 0;
        {'DOWN', Ref, process, Pid, Reason} ->
            log(io_lib:format("concbench-erlang: run failed: ~p", [Reason])),
            1
    end.

run({_Bench, Iterations, Spec}) ->
    emit(["{\"hello\": {\"protocol\": 1, \"language\": \"erlang\", \"runtime\": ", json_string(runtime()),
          ", \"model\": \"", ?MODEL, "\"}}"]),
    Metrics = iterate(0, Iterations, Spec, []),
    case Metrics of
        [] -> ok;
        _ -> emit(["{\"metrics\": {",
                   lists:join(", ", [[json_string(atom_to_list(K)), ": ", json_number(V)] || {K, V} <- Metrics]),
                   "}}"])
    end.

iterate(I, K, _Spec, Metrics) when I =:= K -> Metrics;
iterate(I, K, Spec, _) ->
    {Ns, Result, Metrics} = kernel(Spec),
    emit(["{\"iteration\": ", integer_to_list(I), ", \"ns\": ", integer_to_list(Ns),
          ", \"result\": ", json_string(Result), "}"]),
    iterate(I + 1, K, Spec, Metrics).

kernel({big, Shape, N, P, H}) -> cb_big:iteration(Shape, N, P, H);
kernel({chameneos, message, encore, C, M}) -> cb_chameneos:encore(C, M);
kernel({chameneos, message, redux, N}) -> cb_chameneos:redux(N);
kernel({fannkuch, Shape, N, K, W}) -> cb_fannkuch:iteration(Shape, N, K, W).

runtime() ->
    lists:flatten(io_lib:format("Erlang/OTP ~s (ERTS ~s, ~s)",
                                [erlang:system_info(otp_release), erlang:system_info(version),
                                 erlang:system_info(emu_flavor)])).

%% ---------------------------------------------------------------- output

%% One protocol line on stdout; io:put_chars waits for the io server, so the line is out
%% before we go on (and before erlang:halt/1, which flushes the port).
emit(IoList) -> io:put_chars(standard_io, [IoList, $\n]).

log(IoList) ->
    Line = [case Ch of $\n -> $\s; _ -> Ch end || Ch <- lists:flatten(io_lib:format("~ts", [IoList]))],
    io:put_chars(standard_error, [Line, $\n]).

json_string(S) ->
    [$", [esc(Ch) || Ch <- S], $"].

esc($") -> "\\\"";
esc($\\) -> "\\\\";
esc(Ch) when Ch < 32 -> io_lib:format("\\u~4.16.0b", [Ch]);
esc(Ch) -> Ch.

json_number(V) when is_integer(V) -> integer_to_list(V);
json_number(V) when is_float(V) -> float_to_list(V, [short]).
