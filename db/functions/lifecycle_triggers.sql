-- Attaches the lifecycle workstream's guard triggers (functions defined in the
-- tg_*.sql files listed before this one).

drop trigger if exists _100_protect_frozen_fields on public.community_deletion_requests;
create trigger _100_protect_frozen_fields
  before update on public.community_deletion_requests
  for each row execute function public.tg_community_deletion_requests__protect_frozen_fields();

drop trigger if exists _110_refuse_delete on public.community_deletion_requests;
create trigger _110_refuse_delete
  before delete on public.community_deletion_requests
  for each row execute function public.tg_community_deletion_requests__refuse_delete();

drop trigger if exists _120_refuse_truncate on public.community_deletion_requests;
create trigger _120_refuse_truncate
  before truncate on public.community_deletion_requests
  for each statement execute function public.tg_control_plane__refuse_truncate();

drop trigger if exists _900_stage_moves_forward on public.community_deletion_requests;
create trigger _900_stage_moves_forward
  after update of stage on public.community_deletion_requests
  for each row when (old.stage is distinct from new.stage)
  execute function public.tg_community_deletion_requests__stage_moves_forward();

drop trigger if exists _100_check_approval on public.community_deletion_approvals;
create trigger _100_check_approval
  before insert on public.community_deletion_approvals
  for each row execute function public.tg_community_deletion_approvals__check_approval();

drop trigger if exists _110_refuse_change on public.community_deletion_approvals;
create trigger _110_refuse_change
  before update or delete on public.community_deletion_approvals
  for each row execute function public.tg_community_deletion_approvals__refuse_change();

drop trigger if exists _120_refuse_truncate on public.community_deletion_approvals;
create trigger _120_refuse_truncate
  before truncate on public.community_deletion_approvals
  for each statement execute function public.tg_control_plane__refuse_truncate();

drop trigger if exists _100_protect on public.community_deletion_checkpoints;
create trigger _100_protect
  before update or delete on public.community_deletion_checkpoints
  for each row execute function public.tg_community_deletion_checkpoints__protect();

drop trigger if exists _120_refuse_truncate on public.community_deletion_checkpoints;
create trigger _120_refuse_truncate
  before truncate on public.community_deletion_checkpoints
  for each statement execute function public.tg_control_plane__refuse_truncate();
