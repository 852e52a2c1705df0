<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ChartsScreen</name>
    <message>
        <source>No measurements yet: run a probe (Probe screen) or `linkvet schedule`.</source>
        <translation>尚无测量数据：请运行一次探测（“探测”页面）或 `linkvet schedule`。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Drawn in {seconds:.2f} s · hours in {zone}</source>
        <translation>绘制用时 {seconds:.2f} 秒 · 时段按 {zone} 时间</translation>
    </message>
    <message>
        <source>Save chart as PNG</source>
        <translation>将图表保存为 PNG</translation>
    </message>
    <message>
        <source>Chart not saved</source>
        <translation>图表未保存</translation>
    </message>
    <message>
        <source>Chart saved to {path}</source>
        <translation>图表已保存到 {path}</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>最近 1 小时</translation>
    </message>
    <message>
        <source>Last 6 hours</source>
        <translation>最近 6 小时</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>最近 24 小时</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>Everything</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Period</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Save as PNG…</source>
        <translation>保存为 PNG…</translation>
    </message>
    <message>
        <source>Click a target for its timeline and heatmap; tick several to compare them by hour of day and CDF.</source>
        <translation>单击一个目标查看其时间线和热力图；勾选多个目标可按小时分布和 CDF 进行对比。</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Hour of day</source>
        <translation>按小时分布</translation>
    </message>
    <message>
        <source>Day × hour</source>
        <translation>日期 × 小时</translation>
    </message>
    <message>
        <source>RTT distribution (CDF)</source>
        <translation>RTT 分布（CDF）</translation>
    </message>
    <message>
        <source>Colour by</source>
        <translation>着色依据</translation>
    </message>
    <message>
        <source>median RTT</source>
        <translation>RTT 中位数</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>丢包</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>线路</translation>
    </message>
    <message>
        <source>Provider / region</source>
        <translation>服务商 / 区域</translation>
    </message>
    <message>
        <source>RTT (ms)</source>
        <translation>RTT（毫秒）</translation>
    </message>
    <message>
        <source>loss %</source>
        <translation>丢包率 %</translation>
    </message>
    <message>
        <source>median</source>
        <translation>中位数</translation>
    </message>
    <message>
        <source>p95</source>
        <translation>p95</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>丢失</translation>
    </message>
    <message>
        <source>no data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>replies</source>
        <translation>回复</translation>
    </message>
    <message>
        <source>hour of day</source>
        <translation>一天中的小时</translation>
    </message>
    <message>
        <source>attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>replies at or below (%)</source>
        <translation>不高于该值的回复占比（%）</translation>
    </message>
    <message>
        <source>median RTT (ms)</source>
        <translation>RTT 中位数（毫秒）</translation>
    </message>
</context>
<context>
    <name>LineType</name>
    <message>
        <source>Standard</source>
        <translation>普通线路</translation>
    </message>
    <message>
        <source>Local</source>
        <translation>本地</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Targets</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Probe</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Language not available</source>
        <translation>语言不可用</translation>
    </message>
    <message>
        <source>About linkvet</source>
        <translation>关于 linkvet</translation>
    </message>
    <message>
        <source>linkvet {version}

Measures the line from your office to GPU-hosting regions, above all at peak hours, and scores providers on the measured data.</source>
        <translation>linkvet {version}

测量从办公室到 GPU 托管区域的线路质量（尤其是高峰时段），并依据实测数据为服务商评分。</translation>
    </message>
    <message>
        <source>Store: {path}</source>
        <translation>数据库：{path}</translation>
    </message>
    <message>
        <source>linkvet — line and GPU vendor check</source>
        <translation>linkvet — 线路与 GPU 服务商评估</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About linkvet</source>
        <translation>关于 linkvet(&amp;A)</translation>
    </message>
</context>
<context>
    <name>ProbeScreen</name>
    <message>
        <source>Nothing to probe: switch on targets on the Targets screen.</source>
        <translation>没有可探测的目标：请在“目标”页面勾选目标。</translation>
    </message>
    <message>
        <source>None of the targets can be measured with that method.</source>
        <translation>所选方式无法测量任何目标。</translation>
    </message>
    <message numerus="yes">
        <source>Probing %n target(s)…</source>
        <translation>
            <numerusform>正在探测 %n 个目标…</numerusform>
        </translation>
    </message>
    <message>
        <source>{seconds:.1f} s</source>
        <translation>{seconds:.1f} 秒</translation>
    </message>
    <message numerus="yes">
        <source>Measured %n target(s) in {seconds:.1f} s</source>
        <translation>
            <numerusform>已在 {seconds:.1f} 秒内测量 %n 个目标</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n could not be measured (see the Status column)</source>
        <translation>
            <numerusform>%n 个无法测量（见“状态”列）</numerusform>
        </translation>
    </message>
    <message>
        <source>stored as round {round}</source>
        <translation>已保存为第 {round} 轮</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>{summary}.</source>
        <translation>{summary}。</translation>
    </message>
    <message>
        <source>Results not stored</source>
        <translation>结果未保存</translation>
    </message>
    <message>
        <source>The measurements are shown but could not be saved:
{error}</source>
        <translation>测量结果已显示，但无法保存：
{error}</translation>
    </message>
    <message>
        <source>Probe stopped; nothing of this run was stored.</source>
        <translation>探测已停止；本次运行的数据均未保存。</translation>
    </message>
    <message>
        <source>Probe failed</source>
        <translation>探测失败</translation>
    </message>
    <message>
        <source>Probe</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>as each target says</source>
        <translation>按各目标自身设置</translation>
    </message>
    <message>
        <source>auto (10 icmp/tcp, 3 http, 1 download/iperf3)</source>
        <translation>自动（icmp/tcp 10 次，http 3 次，download/iperf3 1 次）</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Save the results in the store (for Charts and Export)</source>
        <translation>将结果保存到数据库（供图表和导出使用）</translation>
    </message>
    <message>
        <source>Run now</source>
        <translation>立即运行</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>Interval</source>
        <translation>间隔</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>线路</translation>
    </message>
    <message>
        <source>Sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>Last ms</source>
        <translation>最近（毫秒）</translation>
    </message>
    <message>
        <source>Median ms</source>
        <translation>中位数（毫秒）</translation>
    </message>
    <message>
        <source>P95 ms</source>
        <translation>P95（毫秒）</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>丢包率</translation>
    </message>
    <message>
        <source>Jitter ms</source>
        <translation>抖动（毫秒）</translation>
    </message>
    <message>
        <source>Trend</source>
        <translation>趋势</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>丢失</translation>
    </message>
    <message>
        <source>RTT</source>
        <translation>RTT</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
</context>
<context>
    <name>SchedulerPanel</name>
    <message>
        <source>Choose a plan file</source>
        <translation>选择计划文件</translation>
    </message>
    <message>
        <source>Plan files (*.toml)</source>
        <translation>计划文件 (*.toml)</translation>
    </message>
    <message>
        <source>the probe list has no targets switched on</source>
        <translation>探测列表中没有启用的目标</translation>
    </message>
    <message>
        <source>Scheduler not started</source>
        <translation>调度器未启动</translation>
    </message>
    <message>
        <source>Scheduler started: plan {plan}, {count} targets.</source>
        <translation>调度器已启动：计划 {plan}，共 {count} 个目标。</translation>
    </message>
    <message>
        <source>Stopping (the round in flight may finish first)…</source>
        <translation>正在停止（进行中的一轮可能先完成）…</translation>
    </message>
    <message>
        <source>Running {plan}: {rounds} round(s) stored; next round at {time}.</source>
        <translation>正在运行 {plan}：已保存 {rounds} 轮；下一轮于 {time}。</translation>
    </message>
    <message>
        <source>Scheduler stopped after {rounds} stored round(s).</source>
        <translation>调度器已停止，共保存 {rounds} 轮。</translation>
    </message>
    <message>
        <source>Scheduler stopped</source>
        <translation>调度器已停止</translation>
    </message>
    <message>
        <source>Scheduler</source>
        <translation>调度器</translation>
    </message>
    <message>
        <source>the probe list (saved as gui-plan.toml in the data folder)</source>
        <translation>探测列表（在数据文件夹中保存为 gui-plan.toml）</translation>
    </message>
    <message>
        <source>Plan file…</source>
        <translation>计划文件…</translation>
    </message>
    <message>
        <source>every</source>
        <translation>每</translation>
    </message>
    <message>
        <source>at peak every</source>
        <translation>高峰时每</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Start scheduler</source>
        <translation>启动调度器</translation>
    </message>
    <message>
        <source>Stop scheduler</source>
        <translation>停止调度器</translation>
    </message>
    <message>
        <source>Measures on a cadence, denser inside the peak windows, until stopped; every round is stored.</source>
        <translation>按固定周期测量，高峰时段更密集，直到停止；每一轮都会保存。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>One window per line: HH:MM-HH:MM Zone/Name [days], e.g. 20:00-23:00 Asia/Shanghai</source>
        <translation>每行一个时段：HH:MM-HH:MM 时区名 [星期]，例如 20:00-23:00 Asia/Shanghai</translation>
    </message>
    <message>
        <source>Peak windows</source>
        <translation>高峰时段</translation>
    </message>
    <message>
        <source>Charts&apos; time zone</source>
        <translation>图表时区</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Unknown time zone {zone!r}: pick an IANA name such as Asia/Shanghai.</source>
        <translation>未知时区 {zone!r}：请选择 IANA 时区名，例如 Asia/Shanghai。</translation>
    </message>
    <message>
        <source>Choose a data folder.</source>
        <translation>请选择数据文件夹。</translation>
    </message>
</context>
<context>
    <name>TargetDialog</name>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>automatic (host: icmp, host:port: tcp, URL: http)</source>
        <translation>自动（主机：icmp，主机:端口：tcp，URL：http）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>host, address, host:port or http(s):// URL</source>
        <translation>主机名、地址、主机:端口 或 http(s):// URL</translation>
    </message>
    <message>
        <source>shown in tables and charts (default: the address)</source>
        <translation>在表格和图表中显示的名称（默认：地址）</translation>
    </message>
    <message>
        <source>catalog provider id, e.g. raksmart</source>
        <translation>目录中的服务商 ID，例如 raksmart</translation>
    </message>
    <message>
        <source>catalog region id, e.g. los-angeles</source>
        <translation>目录中的区域 ID，例如 los-angeles</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Claimed line type</source>
        <translation>宣称的线路类型</translation>
    </message>
</context>
<context>
    <name>TargetsScreen</name>
    <message>
        <source>Probe list not loaded</source>
        <translation>未能加载探测列表</translation>
    </message>
    <message>
        <source>{error}

The file was kept as {aside}; starting with an empty list.</source>
        <translation>{error}

原文件已保留为 {aside}；将以空列表开始。</translation>
    </message>
    <message>
        <source>Could not save the probe list to {path}: {error}</source>
        <translation>无法将探测列表保存到 {path}：{error}</translation>
    </message>
    <message>
        <source>That target is already on the list.</source>
        <translation>该目标已在列表中。</translation>
    </message>
    <message numerus="yes">
        <source>%n target(s) added to the probe list.</source>
        <translation>
            <numerusform>已将 %n 个目标加入探测列表。</numerusform>
        </translation>
    </message>
    <message>
        <source>Plan not imported</source>
        <translation>计划未导入</translation>
    </message>
    <message numerus="yes">
        <source>Imported plan {plan}: %n new target(s).</source>
        <translation>
            <numerusform>已导入计划 {plan}：新增 %n 个目标。</numerusform>
        </translation>
    </message>
    <message>
        <source>no targets switched on</source>
        <translation>没有启用的目标</translation>
    </message>
    <message>
        <source>Plan not saved</source>
        <translation>计划未保存</translation>
    </message>
    <message>
        <source>Saved {count} targets as {path}: run it with linkvet schedule --plan {path}</source>
        <translation>已将 {count} 个目标保存为 {path}：可用 linkvet schedule --plan {path} 运行</translation>
    </message>
    <message>
        <source>Import a plan file</source>
        <translation>导入计划文件</translation>
    </message>
    <message>
        <source>Plan files (*.toml)</source>
        <translation>计划文件 (*.toml)</translation>
    </message>
    <message>
        <source>Save the probe list as a plan</source>
        <translation>将探测列表保存为计划</translation>
    </message>
    <message>
        <source>{on} of {total} targets switched on for the next run</source>
        <translation>下次运行将探测 {total} 个目标中的 {on} 个</translation>
    </message>
    <message>
        <source>Targets</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>The probe list: what the Probe screen measures. Tick the targets to include; label each with its provider, region and the line type the vendor claims, so measurements join the catalog.</source>
        <translation>探测列表：即“探测”页面要测量的目标。勾选要包含的目标；为每个目标标注服务商、区域以及服务商宣称的线路类型，以便测量结果与目录关联。</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Import plan…</source>
        <translation>导入计划…</translation>
    </message>
    <message>
        <source>Save as plan…</source>
        <translation>保存为计划…</translation>
    </message>
    <message>
        <source>Switch all on</source>
        <translation>全部启用</translation>
    </message>
    <message>
        <source>Switch all off</source>
        <translation>全部停用</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Line type</source>
        <translation>线路类型</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来源</translation>
    </message>
</context>
</TS>
