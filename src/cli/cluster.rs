//! `tfwire cluster scheduler` and `tfwire cluster executor`: Ballista's scheduler and
//! executor with tfwire's extension codecs compiled in ([`tfwire::sql::cluster`]), so that
//! `tfwire sql --cluster` can run its scans there (Ballista's stock binaries cannot decode
//! them).

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;

use ballista_core::registry::BallistaFunctionRegistry;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use clap::{Args, Subcommand};
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};
use tfwire::sql::cluster::{LogicalCodec, PhysicalCodec};

use super::Failure;

const ABOUT: &str = "\
A cluster in three commands (state files and documents at the same paths on every executor):
  tfwire cluster scheduler --bind 127.0.0.1:50050 &
  tfwire cluster executor --scheduler 127.0.0.1:50050 --work-dir /tmp/executor-1 &
  tfwire sql --cluster df://127.0.0.1:50050 --schemas aws.json --states states/ 'SELECT …'
Each process says where it listens on standard error, and runs until it is stopped (SIGINT
or SIGTERM). Ballista's warnings and errors go to standard error too (RUST_LOG=info for more).";

#[derive(Args, Debug)]
#[command(after_help = ABOUT)]
pub struct ClusterArgs {
    #[command(subcommand)]
    role: Role,
}

#[derive(Subcommand, Debug)]
enum Role {
    /// Start a Ballista scheduler (with tfwire's codecs).
    Scheduler(SchedulerArgs),
    /// Start a Ballista executor (with tfwire's codecs) and register it with a scheduler.
    Executor(ExecutorArgs),
}

#[derive(Args, Debug)]
struct SchedulerArgs {
    /// The address to listen on (port 0: any free port; the one taken is said on standard
    /// error).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:50050")]
    bind: SocketAddr,
}

#[derive(Args, Debug)]
struct ExecutorArgs {
    /// The scheduler's address (tried for a minute when it does not answer yet).
    #[arg(long, value_name = "HOST:PORT")]
    scheduler: String,
    /// The address to serve shuffle data and results on (port 0: any free port; the one
    /// taken is said on standard error). Its host is what the scheduler and the other
    /// executors connect to.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:0")]
    bind: SocketAddr,
    /// The directory for shuffle files (default: a new one under the system's temporary
    /// directory).
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    /// Tasks run at once (default: every core).
    #[arg(long, value_name = "N", value_parser = super::state::jobs_count)]
    slots: Option<usize>,
}

/// How long an executor tries to reach its scheduler at its start.
const SCHEDULER_WAIT_SECONDS: u16 = 60;

/// Runs `tfwire cluster`.
pub fn run(args: ClusterArgs) -> Result<(), Failure> {
    // Ballista's log on standard error: warnings and errors (a task that fails, and why),
    // more with RUST_LOG (`RUST_LOG=info`).
    env_logger::Builder::new()
        .parse_filters("warn")
        .parse_default_env()
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::BadInput(format!("runtime: {e}")))?;
    match args.role {
        Role::Scheduler(args) => runtime.block_on(scheduler(args)),
        Role::Executor(args) => runtime.block_on(executor(args)),
    }
}

async fn scheduler(args: SchedulerArgs) -> Result<(), Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure::BadInput(format!("scheduler: {e}"));
    let listener = (tokio::net::TcpListener::bind(args.bind).await)
        .map_err(|e| failed(&format!("{}: {e}", args.bind)))?;
    let addr = listener.local_addr().map_err(|e| failed(&e))?;
    let config = SchedulerConfig {
        bind_host: addr.ip().to_string(),
        bind_port: addr.port(),
        override_logical_codec: Some(Arc::new(LogicalCodec::default())),
        override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
        ..Default::default()
    };
    config.validate().map_err(|e| failed(&e))?;
    let config = Arc::new(config);
    let cluster = (BallistaCluster::new_from_config(&config).await).map_err(|e| failed(&e))?;
    let scheduler = create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, config)
        .await
        .map_err(|e| failed(&e))?;
    eprintln!("tfwire: scheduler listening on {addr}");
    (start_grpc_service_with_listener(listener, scheduler).await).map_err(|e| failed(&e))
}

async fn executor(args: ExecutorArgs) -> Result<(), Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure::BadInput(format!("executor: {e}"));
    let (scheduler_host, scheduler_port) = (args.scheduler.rsplit_once(':'))
        .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
        .ok_or_else(|| Failure::Usage(format!("--scheduler {}: not HOST:PORT", args.scheduler)))?;
    let ip = args.bind.ip();
    // (Ballista binds the ports it is given and tells the scheduler those: port 0 is
    // resolved here.)
    // (Both held until both are chosen, so they differ.)
    let held: Vec<TcpListener> = (0..2)
        .map(|_| TcpListener::bind((ip, 0)))
        .collect::<std::io::Result<_>>()
        .map_err(|e| failed(&e))?;
    let free: Vec<u16> = (held.iter())
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<std::io::Result<_>>()
        .map_err(|e| failed(&e))?;
    drop(held);
    let (port, grpc_port) = match (args.bind.port(), free.as_slice()) {
        (0, &[a, b]) => (a, b),
        (p, &[a, b]) => (p, if a == p { b } else { a }),
        _ => return Err(failed(&"no free port")),
    };
    let work_dir = match args.work_dir {
        Some(dir) => dir,
        None => std::env::temp_dir().join(format!("tfwire-executor-{}", std::process::id())),
    };
    std::fs::create_dir_all(&work_dir).map_err(|e| Failure::file(&work_dir, e))?;
    let config = ExecutorProcessConfig {
        bind_host: ip.to_string(),
        port,
        grpc_port,
        scheduler_host,
        scheduler_port,
        // (Started beside its scheduler, it may come up first: it retries meanwhile.)
        scheduler_connect_timeout_seconds: SCHEDULER_WAIT_SECONDS,
        work_dir: Some(work_dir.display().to_string()),
        vcores: args.slots.unwrap_or(0),
        print_thread_info: false,
        override_logical_codec: Some(Arc::new(LogicalCodec::default())),
        override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
        // Every function a DataFusion session has (Ballista's default registry lacks the
        // nested ones: `cardinality`, `array_length`, …).
        override_function_registry: Some(Arc::new(BallistaFunctionRegistry::from(
            &SessionStateBuilder::new().with_default_features().build(),
        ))),
        ..Default::default()
    };
    eprintln!(
        "tfwire: executor listening on {} (scheduler {}, work directory {})",
        SocketAddr::new(ip, port),
        args.scheduler,
        work_dir.display()
    );
    (start_executor_process(Arc::new(config)).await).map_err(|e| failed(&e))
}
